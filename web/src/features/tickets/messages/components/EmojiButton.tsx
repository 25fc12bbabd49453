import { lazy, Suspense, useState } from 'react';
import { Box, CircularProgress, IconButton, Popover, Tooltip } from '@mui/material';
import EmojiIcon from '@mui/icons-material/EmojiEmotionsOutlined';
import { useTranslation } from 'react-i18next';

const EmojiPanel = lazy(() => import('./EmojiPanel'));

/** The input's emoji button: opens the picker (its own chunk, loaded on first open). */
export function EmojiButton({ onPick, disabled }: { onPick: (emoji: string) => void; disabled?: boolean }) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Tooltip title={t('messages.emoji')}>
        <span>
          <IconButton onClick={(e) => setAnchor(e.currentTarget)} disabled={disabled} aria-label={t('messages.emoji')} data-testid="input-emoji">
            <EmojiIcon />
          </IconButton>
        </span>
      </Tooltip>
      <Popover
        open={anchor !== null}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'top', horizontal: 'left' }}
        transformOrigin={{ vertical: 'bottom', horizontal: 'left' }}
      >
        <Box data-testid="emoji-picker">
          <Suspense
            fallback={
              <Box sx={{ width: 320, height: 380, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
                <CircularProgress size={24} />
              </Box>
            }
          >
            <EmojiPanel
              onPick={(emoji) => {
                onPick(emoji);
                setAnchor(null);
              }}
            />
          </Suspense>
        </Box>
      </Popover>
    </>
  );
}
