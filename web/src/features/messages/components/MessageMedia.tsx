import { useState } from 'react';
import { Box, Button, CircularProgress, Link, Typography } from '@mui/material';
import DescriptionIcon from '@mui/icons-material/Description';
import { useTranslation } from 'react-i18next';
import { useObjectUrl } from '../../../lib/avatar';
import { useMessageMedia } from '../api/messages';
import type { Message } from '../types';

const SPEEDS = [0.5, 1, 1.5, 2] as const;
const SPEED_KEY = 'audioPlaybackRate';

function storedSpeed(): number {
  const value = Number(localStorage.getItem(SPEED_KEY));
  return (SPEEDS as readonly number[]).includes(value) ? value : 1;
}

/** Image, video, audio or document of a message, fetched with the bearer token as a blob. */
export function MessageMedia({ message }: { message: Message }) {
  const { t } = useTranslation();
  const media = useMessageMedia(message);
  const url = useObjectUrl(media.data);
  const [speed, setSpeed] = useState(storedSpeed);

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
            onClick={() => {
              const next = SPEEDS[(SPEEDS.indexOf(speed as (typeof SPEEDS)[number]) + 1) % SPEEDS.length];
              localStorage.setItem(SPEED_KEY, String(next));
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
