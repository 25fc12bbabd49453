import { Tooltip } from '@mui/material';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { useTranslation } from 'react-i18next';
import type { Message } from '../types';

/**
 * Next to an own message's ticks: WhatsApp's server took it (one tick) but the contact's phone has
 * not confirmed it for 10 minutes (`deliveryIssue: "notDelivered"`, docs/channels.md "Delivery
 * assurance"). Nothing otherwise; a later receipt clears the flag and the mark goes away.
 */
export function DeliveryIssueIndicator({ message }: { message: Pick<Message, 'id' | 'deliveryIssue'> }) {
  const { t } = useTranslation();
  if (message.deliveryIssue !== 'notDelivered') return null;
  const text = t('messages.deliveryIssue.notDelivered');
  return (
    <Tooltip title={text}>
      <WarningAmberIcon
        fontSize="inherit"
        color="warning"
        tabIndex={0}
        aria-label={text}
        role="img"
        data-testid={`message-delivery-issue-${message.id}`}
        data-issue={message.deliveryIssue}
      />
    </Tooltip>
  );
}
