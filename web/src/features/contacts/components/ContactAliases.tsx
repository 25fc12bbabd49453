import { Chip, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { identityOf } from '../utils/identities';

interface ContactAliasesProps {
  /** The contact's other identities (`GET /contacts/{id}` `aliases`). */
  aliases: readonly string[];
}

/**
 * "Also known as": the other identities WhatsApp knows a contact by, read-only (the server keeps
 * them from the messages; nobody edits them). Nothing when there are none.
 */
export function ContactAliases({ aliases }: ContactAliasesProps) {
  const { t } = useTranslation();
  if (aliases.length === 0) return null;
  return (
    <Stack spacing={1} data-testid="contact-aliases">
      <Typography variant="subtitle2">{t('contacts.modal.aliases.title')}</Typography>
      <Typography variant="body2" color="text.secondary">
        {t('contacts.modal.aliases.help')}
      </Typography>
      <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
        {aliases.map((alias, index) => {
          const identity = identityOf(alias);
          const label = identity.kind === 'lid' ? t('contacts.modal.aliases.lid', { id: identity.id }) : t('contacts.modal.aliases.phone', { number: identity.number });
          return <Chip key={alias} size="small" variant="outlined" label={label} title={alias} data-testid={`contact-alias-${index}`} />;
        })}
      </Stack>
    </Stack>
  );
}
