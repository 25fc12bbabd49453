import { Box } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { FormattedPreview } from '../../../components/FormattedText';
import { LAST_MESSAGE_MAX } from '../format';
import type { Ticket } from '../types';

/**
 * Media kinds whose caption-less placeholder the inbox names in the reader's language; `gap` (a
 * gap notice, whose body is its interval) always.
 */
const PREVIEW_MEDIA = ['image', 'audio', 'video', 'application', 'locationMessage', 'contactMessage', 'call_log', 'gap'] as const;
type PreviewMedia = (typeof PREVIEW_MEDIA)[number];
const isPreviewMedia = (kind: string | null | undefined): kind is PreviewMedia => PREVIEW_MEDIA.includes(kind as PreviewMedia);

/**
 * A ticket's last message as the inbox shows it: formatted as on the phone and cut at 40
 * characters, or that it was deleted (by the attendant's side or by the contact), or, for a file
 * without a caption, its kind in the reader's language (the server stores a Portuguese
 * placeholder such as "📷 Imagem" in `lastMessage` and names the kind in `lastMessageMedia`).
 */
export function LastMessage({ ticket }: { ticket: Pick<Ticket, 'lastMessage' | 'lastMessageDeleted' | 'lastMessageFromMe' | 'lastMessageMedia'> }) {
  const { t } = useTranslation();
  const media = ticket.lastMessageMedia;
  if (!ticket.lastMessageDeleted && isPreviewMedia(media)) {
    return (
      <Box component="span" data-media={media}>
        {t(`messages.preview.${media}`)}
      </Box>
    );
  }
  if (ticket.lastMessageDeleted) {
    return (
      <Box component="span" sx={{ fontStyle: 'italic' }} data-deleted="true">
        {ticket.lastMessageFromMe ? t('messages.deletedOwn') : t('messages.deletedByContact')}
      </Box>
    );
  }
  return <FormattedPreview text={ticket.lastMessage ?? ''} max={LAST_MESSAGE_MAX} />;
}
