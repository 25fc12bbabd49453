/** The OpenAI node: the assistant, its prompt and queue. */
import { Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { FormSelectField, FormTextField } from '../../../../components/ui';
import { EMPTY_OPENAI_SETTINGS, numberOr, openaiFields, openaiFormSchema, positiveId } from '../../utils/nodes';
import { FormDialog, type NodeDialogProps } from './shell';
import { useQueueSelect } from './queues';

export function OpenAiDialog({ data, onSubmit, onClose }: NodeDialogProps<'openai'>) {
  const { t } = useTranslation();
  const { options: queueOptions } = useQueueSelect();
  const current = data ? openaiFields(data) : EMPTY_OPENAI_SETTINGS;
  return (
    <FormDialog
      schema={openaiFormSchema}
      defaults={{
        name: current.name ?? '',
        prompt: current.prompt ?? '',
        apiKey: current.apiKey ?? '',
        voice: data ? (current.voice ?? '') : 'texto',
        maxTokens: numberOr(current.maxTokens, 100),
        temperature: numberOr(current.temperature, 1),
        maxMessages: numberOr(current.maxMessages, 10),
        queueId: positiveId(current.queueId) ?? '',
      }}
      // The settings go nested; the flat ones stay empty, as the core writes them then.
      onValues={(v) => onSubmit({ ...EMPTY_OPENAI_SETTINGS, typebotIntegration: { ...current, ...v, voiceKey: current.voiceKey ?? '', voiceRegion: current.voiceRegion ?? '' } })}
      type="openai"
      editing={!!data}
      onClose={onClose}
    >
      {() => (
        <>
          <FormTextField name="name" label={t('flows.dialog.name')} required fullWidth autoFocus testId="node-openai-name" />
          <FormTextField name="prompt" label={t('flows.dialog.prompt')} required multiline minRows={4} fullWidth testId="node-openai-prompt" />
          <FormTextField name="apiKey" label={t('flows.dialog.apiKey')} required type="password" fullWidth testId="node-openai-key" />
          <FormSelectField name="voice" label={t('flows.dialog.voice')} options={[{ value: 'texto', label: t('flows.dialog.voiceText') }]} fullWidth testId="node-openai-voice" />
          <Stack direction="row" spacing={2}>
            <FormTextField name="maxTokens" type="number" label={t('flows.dialog.maxTokens')} fullWidth testId="node-openai-tokens" />
            <FormTextField name="temperature" type="number" label={t('flows.dialog.temperature')} fullWidth slotProps={{ htmlInput: { step: 0.1 } }} testId="node-openai-temperature" />
            <FormTextField name="maxMessages" type="number" label={t('flows.dialog.maxMessages')} fullWidth testId="node-openai-messages" />
          </Stack>
          <FormSelectField
            name="queueId"
            label={t('flows.dialog.handoverQueue')}
            options={[{ value: '', label: t('flows.node.noQueue') }, ...queueOptions]}
            fullWidth
            testId="node-openai-queue"
          />
        </>
      )}
    </FormDialog>
  );
}
