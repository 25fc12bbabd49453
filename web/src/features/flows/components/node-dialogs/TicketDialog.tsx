/** The ticket node: the queue the conversation moves to. */
import { useTranslation } from 'react-i18next';
import { FormSelectField } from '../../../../components/ui';
import { ticketQueueId, ticketFormSchema } from '../../utils/nodes';
import { useQueueSelect } from './queues';
import { FormDialog, type NodeDialogProps } from './shell';

export function TicketDialog({ data, onSubmit, onClose }: NodeDialogProps<'ticket'>) {
  const { t } = useTranslation();
  const { queues, options } = useQueueSelect();
  return (
    <FormDialog
      schema={ticketFormSchema}
      defaults={{ queueId: (data && ticketQueueId(data)) ?? '' }}
      onValues={(v) => {
        const queue = queues.find((q) => q.id === v.queueId);
        onSubmit({ ...data, queue: { id: v.queueId, name: queue?.name ?? '' } });
      }}
      type="ticket"
      editing={!!data}
      onClose={onClose}
    >
      {() => <FormSelectField name="queueId" label={t('flows.dialog.queue')} options={options} fullWidth testId="node-ticket-queue" />}
    </FormDialog>
  );
}
