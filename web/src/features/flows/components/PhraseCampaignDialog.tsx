import { useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Autocomplete, Button, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, MenuItem, Stack, Switch, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormTextField } from '../../../components/ui';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { translateFieldCode } from '../../../lib/i18n/errors';
import { toast } from '../../../lib/toast';
import { toastFlowError } from '../utils/errors';
import { phraseCampaignFormSchema, useConnectionOptions, useFlowOptions, useSaveFlowCampaign, type PhraseCampaignFormValues } from '../api/phrase-lists';
import type { FlowCampaign, FlowSummary } from '../types';

interface PhraseCampaignDialogProps {
  /** The campaign to edit; null to create one. */
  campaign: FlowCampaign | null;
  onClose: () => void;
}

/** 'Nova campanha com fluxo por frase' / 'Editar campanha com fluxo por frase' (spec 3 §2.14, §5). */
export function PhraseCampaignDialog({ campaign, onClose }: PhraseCampaignDialogProps) {
  const { t } = useTranslation();
  const save = useSaveFlowCampaign();
  const connections = useConnectionOptions();
  const [flowSearch, setFlowSearch] = useState('');
  const flows = useFlowOptions(useDebouncedValue(flowSearch, 500));
  const form = useForm<PhraseCampaignFormValues>({
    resolver: zodResolver(phraseCampaignFormSchema),
    defaultValues: {
      name: campaign?.name ?? '',
      flowId: campaign?.flowId ?? null,
      whatsappId: campaign?.whatsappId ?? '',
      phrase: campaign?.phrase ?? '',
      status: campaign?.status ?? true,
    },
  });
  const [flowLabel, setFlowLabel] = useState<FlowSummary | null>(null);
  // A missing connection is flagged once the user tries to save, but does not block saving.
  const whatsappId = useWatch({ control: form.control, name: 'whatsappId' });
  const missingConnection = form.formState.submitCount > 0 && whatsappId === '';

  const onSubmit = (values: PhraseCampaignFormValues) => {
    save.mutate(
      { id: campaign?.id ?? null, values },
      {
        onSuccess: () => {
          toast.success(campaign ? t('phraseLists.updated') : t('phraseLists.created'));
          onClose();
        },
        onError: (error) => toastFlowError(error, t),
      },
    );
  };

  const flowOptions = flows.data ?? [];
  // The connections page's words for a status; an unknown status as the server sent it.
  const connectionStatus = (status: string) => t(`connections.status.${status}` as 'connections.status.CONNECTED', { defaultValue: status });
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid="phrase-dialog">
      <DialogTitle>{campaign ? t('phraseLists.editTitle') : t('phraseLists.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="phrase-form" inDialog>
        <DialogContent dividers>
          <Stack spacing={2}>
            <FormTextField name="name" label={t('phraseLists.fieldName')} required fullWidth autoFocus testId="phrase-name" />
            <Controller
              control={form.control}
              name="flowId"
              render={({ field, fieldState }) => {
                const selected = flowOptions.find((f) => f.id === field.value) ?? (flowLabel && flowLabel.id === field.value ? flowLabel : null);
                return (
                  <Autocomplete
                    options={flowOptions}
                    value={selected}
                    getOptionLabel={(option) => option.name}
                    isOptionEqualToValue={(a, b) => a.id === b.id}
                    onChange={(_event, value) => {
                      setFlowLabel(value);
                      field.onChange(value?.id ?? null);
                    }}
                    onInputChange={(_event, value, reason) => {
                      if (reason === 'input') setFlowSearch(value);
                    }}
                    filterOptions={(options) => options}
                    noOptionsText={t('phraseLists.noFlows')}
                    loading={flows.isFetching}
                    renderOption={(props, option) => (
                      <li {...props} key={option.id} data-testid={`phrase-flow-option-${option.id}`}>
                        {option.name}
                      </li>
                    )}
                    renderInput={(params) => (
                      <TextField
                        {...params}
                        label={t('phraseLists.fieldFlow')}
                        required
                        error={!!fieldState.error}
                        helperText={translateFieldCode(fieldState.error?.message, t)}
                        slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': 'phrase-flow' } }}
                      />
                    )}
                  />
                );
              }}
            />
            <Controller
              control={form.control}
              name="whatsappId"
              render={({ field }) => (
                <TextField
                  select
                  label={t('phraseLists.fieldConnection')}
                  value={field.value}
                  onChange={(event) => field.onChange(event.target.value === '' ? '' : Number(event.target.value))}
                  error={missingConnection}
                  helperText={missingConnection ? t('phraseLists.required') : undefined}
                  slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'phrase-connection' } as object } }}
                >
                  {(connections.data ?? []).map((connection) => (
                    <MenuItem key={connection.id} value={connection.id} data-testid={`phrase-connection-option-${connection.id}`}>
                      {connection.name} {connection.status ? `(${connectionStatus(connection.status)})` : ''}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            />
            <FormTextField name="phrase" label={t('phraseLists.fieldPhrase')} required fullWidth testId="phrase-phrase" />
            <Controller
              control={form.control}
              name="status"
              render={({ field }) => (
                <FormControlLabel
                  control={<Switch checked={field.value} onChange={(event) => field.onChange(event.target.checked)} slotProps={{ input: { 'data-testid': 'phrase-status' } as object }} />}
                  label={t('phraseLists.fieldStatus')}
                />
              )}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="phrase-cancel">
            {t('phraseLists.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="phrase-save">
            {campaign ? t('phraseLists.save') : t('phraseLists.create')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
