import { useState } from 'react';
import { Box, Button, CircularProgress, Link, Typography } from '@mui/material';
import DescriptionIcon from '@mui/icons-material/Description';
import { useTranslation } from 'react-i18next';
import { useObjectUrl } from '../../../../lib/avatar';
import { useMessageMedia } from '../api/messages';
import { nextPlaybackRate, storedPlaybackRate, storePlaybackRate } from '../format';
import type { Message } from '../types';

/** Image, video, audio or document of a message, fetched with the bearer token as a blob. */
export function MessageMedia({ message }: { message: Message }) {
  const { t } = useTranslation();
  const media = useMessageMedia(message);
  const url = useObjectUrl(media.data);
  const [speed, setSpeed] = useState(storedPlaybackRate);

  if (media.isError) return <Typography variant="caption" color="error">{t('messages.mediaError')}</Typography>;
  if (!url) return <CircularProgress size={20} data-testid={`message-media-loading-${message.id}`} />;
  switch (message.mediaType) {
    case 'image':
      return (
        <Link href={url} target="_blank" rel="noreferrer">
          <Box component="img" src={url} alt={message.mediaName ?? ''} sx={{ maxWidth: 260, maxHeight: 260, borderRadius: 1, display: 'block' }} data-testid={`message-image-${message.id}`} />
        </Link>
      );
    case 'video':
      return <Box component="video" src={url} controls sx={{ maxWidth: 260, borderRadius: 1 }} data-testid={`message-video-${message.id}`} />;
    case 'audio':
      return (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <audio
            src={url}
            controls
            data-testid={`message-audio-${message.id}`}
            ref={(element) => {
              if (element) element.playbackRate = speed;
            }}
          />
          <Button
            size="small"
            aria-label={t('messages.audio.speed')}
            title={t('messages.audio.speed')}
            data-testid={`message-audio-speed-${message.id}`}
            onClick={() => {
              const next = nextPlaybackRate(speed);
              storePlaybackRate(next);
              setSpeed(next);
            }}
          >
            {speed}x
          </Button>
        </Box>
      );
    default:
      return (
        <Button component="a" href={url} download={message.mediaName ?? 'file'} startIcon={<DescriptionIcon />} size="small" data-testid={`message-file-${message.id}`}>
          {message.mediaName ?? t('messages.download')}
        </Button>
      );
  }
}
