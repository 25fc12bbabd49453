/** The typebot node: the bot to hand over to, or filled from a queue integration. */
import { useState } from 'react';
import { MenuItem, Stack, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod/mini';
import { FormTextField } from '../../../../components/ui';
import { useTypebotIntegrations } from '../../api/flows';
import { typebotFormSchema, typebotFormValues } from '../../utils/nodes';
import { FormDialog, type NodeDialogProps } from './shell';

export function TypebotDialog({ data, onSubmit, onClose }: NodeDialogProps<'typebot'>) {
  const { t } = useTranslation();
  const stored = data?.typebotIntegration;
  const previous = stored && typeof stored === 'object' && !Array.isArray(stored) ? stored : {};
  return (
    <FormDialog
      schema={typebotFormSchema}
      defaults={typebotFormValues(previous)}
      onValues={(v) => onSubmit({ ...data, typebotIntegration: { ...previous, type: 'typebot', ...v } })}
      type="typebot"
      editing={!!data}
      onClose={onClose}
    >
      {(form) => (
        <>
          <TypebotIntegrationFill onFill={(values) => form.reset(values, { keepDefaultValues: true })} />
          <FormTextField name="name" label={t('flows.dialog.name')} required fullWidth autoFocus testId="node-typebot-name" />
          <FormTextField name="urlN8N" label={t('flows.dialog.typebotUrl')} required fullWidth placeholder="https://" testId="node-typebot-url" />
          <FormTextField name="typebotSlug" label={t('flows.dialog.typebotSlug')} required fullWidth testId="node-typebot-slug" />
          <Stack direction="row" spacing={2}>
            <FormTextField name="typebotExpires" type="number" label={t('flows.dialog.typebotExpires')} helperText={t('flows.dialog.typebotExpiresHelp')} fullWidth testId="node-typebot-expires" />
            <FormTextField name="typebotDelayMessage" type="number" label={t('flows.dialog.typebotDelay')} fullWidth testId="node-typebot-delay" />
          </Stack>
          <Stack direction="row" spacing={2}>
            <FormTextField name="typebotKeywordFinish" label={t('flows.dialog.typebotKeywordFinish')} fullWidth testId="node-typebot-keyword-finish" />
            <FormTextField name="typebotKeywordRestart" label={t('flows.dialog.typebotKeywordRestart')} fullWidth testId="node-typebot-keyword-restart" />
          </Stack>
          <FormTextField name="typebotUnknownMessage" label={t('flows.dialog.typebotUnknownMessage')} multiline fullWidth testId="node-typebot-unknown-message" />
          <FormTextField name="typebotRestartMessage" label={t('flows.dialog.typebotRestartMessage')} multiline fullWidth testId="node-typebot-restart-message" />
        </>
      )}
    </FormDialog>
  );
}

/** Fills the typebot form from an existing queue integration; hidden while there is none. */
function TypebotIntegrationFill({ onFill }: { onFill: (values: z.input<typeof typebotFormSchema>) => void }) {
  const { t } = useTranslation();
  const integrations = useTypebotIntegrations().data ?? [];
  const [chosen, setChosen] = useState<number | ''>('');
  if (integrations.length === 0) return null;
  const choose = (id: number) => {
    setChosen(id);
    const integration = integrations.find((i) => i.id === id);
    if (integration) onFill(typebotFormValues(integration));
  };
  return (
    <TextField
      select
      label={t('flows.dialog.integrationFill')}
      value={chosen}
      onChange={(event) => choose(Number(event.target.value))}
      fullWidth
      slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'node-typebot-integration' } as object } }}
    >
      {integrations.map((integration) => (
        <MenuItem key={integration.id} value={integration.id} data-testid={`node-typebot-integration-option-${integration.id}`}>
          {integration.name}
        </MenuItem>
      ))}
    </TextField>
  );
}
