import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { Box, Button, IconButton, Paper, Stack, Tooltip, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { useTranslation } from 'react-i18next';
import { FormSelectField, FormSwitchField, FormTextField, type SelectOption } from '../../../components/ui';
import { emptyOption } from '../api/queue-form';
import { QUEUE_TYPES, type QueueType } from '../types';

interface Targets {
  /** Queues an option of type "queue" may send the ticket to. */
  queueOptions: SelectOption[];
  /** Attendants an option of type "attendent" may hand the ticket to. */
  userOptions: SelectOption[];
}

interface ChatbotOptionsEditorProps extends Targets {
  /** Form path of the option array: `chatbots`, `chatbots.0.options`, ... */
  name: string;
  /** Position of the parent option (`1.2`), empty at the top level. */
  numberPrefix?: string;
  disabled?: boolean;
}

/**
 * The chatbot menu of a queue (spec 2 "Queues": options nest to any depth). Each option has a
 * name, the message shown before its sub-options, a type with its target (queue, attendant,
 * integration or file list id), a close-ticket switch and its own sub-options; options can be
 * added, removed and moved up or down. Works inside the queue dialog's form.
 */
export function ChatbotOptionsEditor({ name, numberPrefix = '', queueOptions, userOptions, disabled }: ChatbotOptionsEditorProps) {
  const { t } = useTranslation();
  const { control } = useFormContext();
  const { fields, append, remove, move } = useFieldArray({ control, name });
  const nested = numberPrefix !== '';
  const idPrefix = nested ? `${numberPrefix.replaceAll('.', '-')}-` : '';

  return (
    <Stack spacing={1.5} data-testid={`chatbot-options-${nested ? numberPrefix.replaceAll('.', '-') : 'root'}`}>
      {!nested && fields.length === 0 && (
        <Typography variant="body2" color="text.secondary" data-testid="chatbot-options-empty">
          {t('queues.chatbot.empty')}
        </Typography>
      )}
      {fields.map((field, index) => (
        <ChatbotOptionItem
          key={field.id}
          path={`${name}.${index}`}
          number={nested ? `${numberPrefix}.${index + 1}` : `${index + 1}`}
          index={index}
          count={fields.length}
          onMove={(to) => move(index, to)}
          onRemove={() => remove(index)}
          queueOptions={queueOptions}
          userOptions={userOptions}
          disabled={disabled}
        />
      ))}
      <Box>
        <Button
          size="small"
          startIcon={<AddIcon />}
          onClick={() => append(emptyOption())}
          disabled={disabled}
          data-testid={`chatbot-add-${nested ? idPrefix.slice(0, -1) : 'root'}`}
        >
          {nested ? t('queues.chatbot.addSub') : t('queues.chatbot.add')}
        </Button>
      </Box>
    </Stack>
  );
}

interface ChatbotOptionItemProps extends Targets {
  path: string;
  /** 1-based position, dotted for nested options (`1.2`). */
  number: string;
  index: number;
  count: number;
  onMove: (to: number) => void;
  onRemove: () => void;
  disabled?: boolean;
}

function ChatbotOptionItem({ path, number, index, count, onMove, onRemove, queueOptions, userOptions, disabled }: ChatbotOptionItemProps) {
  const { t } = useTranslation();
  const { control } = useFormContext();
  const queueType = useWatch({ control, name: `${path}.queueType` }) as QueueType;
  const id = `chatbot-${number.replaceAll('.', '-')}`;
  const typeOptions = QUEUE_TYPES.map((type) => ({ value: type, label: t(`queues.chatbot.types.${type}`) }));

  return (
    <Paper variant="outlined" sx={{ p: 1.5 }} data-testid={id}>
      <Stack spacing={1.5}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Typography variant="subtitle2" sx={{ flex: 1 }}>
            {t('queues.chatbot.option', { number })}
          </Typography>
          <Tooltip title={t('queues.chatbot.moveUp')}>
            <span>
              <IconButton size="small" onClick={() => onMove(index - 1)} disabled={disabled || index === 0} aria-label={t('queues.chatbot.moveUp')} data-testid={`${id}-up`}>
                <ArrowUpwardIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title={t('queues.chatbot.moveDown')}>
            <span>
              <IconButton
                size="small"
                onClick={() => onMove(index + 1)}
                disabled={disabled || index === count - 1}
                aria-label={t('queues.chatbot.moveDown')}
                data-testid={`${id}-down`}
              >
                <ArrowDownwardIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title={t('queues.chatbot.remove')}>
            <span>
              <IconButton size="small" onClick={onRemove} disabled={disabled} aria-label={t('queues.chatbot.remove')} data-testid={`${id}-remove`}>
                <DeleteOutlineIcon fontSize="small" />
              </IconButton>
            </span>
          </Tooltip>
        </Stack>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
          <FormTextField name={`${path}.name`} label={t('queues.chatbot.name')} required size="small" fullWidth disabled={disabled} testId={`${id}-name`} />
          <FormSelectField name={`${path}.queueType`} label={t('queues.chatbot.type')} options={typeOptions} size="small" fullWidth disabled={disabled} testId={`${id}-type`} />
          {queueType === 'queue' && (
            <FormSelectField name={`${path}.optQueueId`} label={t('queues.chatbot.queue')} options={queueOptions} required size="small" fullWidth disabled={disabled} testId={`${id}-queue`} />
          )}
          {queueType === 'attendent' && (
            <FormSelectField name={`${path}.optUserId`} label={t('queues.chatbot.user')} options={userOptions} required size="small" fullWidth disabled={disabled} testId={`${id}-user`} />
          )}
          {queueType === 'integration' && (
            <FormTextField
              name={`${path}.optIntegrationId`}
              label={t('queues.chatbot.integrationId')}
              required
              size="small"
              fullWidth
              disabled={disabled}
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
              testId={`${id}-integration`}
            />
          )}
          {queueType === 'file' && (
            <FormTextField
              name={`${path}.optFileId`}
              label={t('queues.chatbot.fileId')}
              required
              size="small"
              fullWidth
              disabled={disabled}
              slotProps={{ htmlInput: { inputMode: 'numeric' } }}
              testId={`${id}-file`}
            />
          )}
        </Stack>
        <FormTextField
          name={`${path}.greetingMessage`}
          label={t('queues.chatbot.message')}
          helperText={t('queues.chatbot.messageHint')}
          multiline
          minRows={2}
          size="small"
          fullWidth
          disabled={disabled}
          testId={`${id}-message`}
        />
        <FormSwitchField name={`${path}.closeTicket`} label={t('queues.chatbot.closeTicket')} testId={`${id}-closeTicket`} />
        <Box sx={{ pl: 2, borderLeft: 2, borderColor: 'divider' }}>
          <ChatbotOptionsEditor name={`${path}.options`} numberPrefix={number} queueOptions={queueOptions} userOptions={userOptions} disabled={disabled} />
        </Box>
      </Stack>
    </Paper>
  );
}
