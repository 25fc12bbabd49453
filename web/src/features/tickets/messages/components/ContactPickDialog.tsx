import { useState } from 'react';
import { Autocomplete, Button, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, Switch, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useDebouncedValue } from '../../../../lib/hooks/useDebouncedValue';
import { useContactPick, type ContactPick } from '../api/contacts';

interface Props {
  open: boolean;
  title: string;
  submitLabel: string;
  /** Shows the sign toggle (forward). */
  withSign?: boolean;
  busy?: boolean;
  testId: string;
  onClose: () => void;
  onSubmit: (contact: ContactPick, sign: boolean) => void;
}

/** Picks a contact (from 3 characters, 500 ms debounce): forward a message, send a contact card. */
export function ContactPickDialog({ open, title, submitLabel, withSign, busy, testId, onClose, onSubmit }: Props) {
  const { t } = useTranslation();
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input, 500);
  const contacts = useContactPick(search);
  const [contact, setContact] = useState<ContactPick | null>(null);
  const [sign, setSign] = useState(true);
  const close = () => {
    setInput('');
    setContact(null);
    onClose();
  };
  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="xs" data-testid={testId}>
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Autocomplete
          sx={{ mt: 1 }}
          options={input.trim().length >= 3 ? (contacts.data ?? []) : []}
          value={contact}
          onChange={(_e, value) => setContact(value)}
          inputValue={input}
          onInputChange={(_e, value) => setInput(value)}
          getOptionLabel={(option) => (option.number ? `${option.name} - ${option.number}` : option.name)}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          filterOptions={(options) => options}
          noOptionsText={t('messages.pick.typeMore')}
          renderInput={(params) => (
            <TextField {...params} label={t('messages.pick.contact')} slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': `${testId}-contact` } }} />
          )}
        />
        {withSign && <FormControlLabel sx={{ mt: 1 }} control={<Switch checked={sign} onChange={(e) => setSign(e.target.checked)} />} label={t('messages.sign')} />}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          disabled={!contact || busy}
          data-testid={`${testId}-submit`}
          onClick={() => {
            if (!contact) return;
            onSubmit(contact, sign);
            setInput('');
            setContact(null);
          }}
        >
          {submitLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
