import { lazy, Suspense, useState } from 'react';
import { Box, IconButton, Popover } from '@mui/material';
import VolumeDownIcon from '@mui/icons-material/VolumeDown';
import VolumeOffIcon from '@mui/icons-material/VolumeOff';
import VolumeUpIcon from '@mui/icons-material/VolumeUp';
import { useTranslation } from 'react-i18next';
import { readVolume, storeVolume } from '../../lib/sound';
import { Tooltip } from '../../components/Tooltip';

/** The slider (MUI's Slider is large) loads when the popover first opens. */
const VolumeSlider = lazy(() => import('./VolumeSlider'));

/** Notification volume, 0 to 1 in steps of 0.1, kept in localStorage `volume`. */
export function VolumeControl() {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [volume, setVolume] = useState(readVolume);
  const Icon = volume === 0 ? VolumeOffIcon : volume < 0.5 ? VolumeDownIcon : VolumeUpIcon;
  return (
    <>
      <Tooltip title={t('topBar.volume')}>
        <IconButton color="inherit" onClick={(event) => setAnchor(event.currentTarget)} aria-label={t('topBar.volume')} data-testid="volume-button">
          <Icon />
        </IconButton>
      </Tooltip>
      <Popover
        open={!!anchor}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
        transformOrigin={{ vertical: 'top', horizontal: 'center' }}
      >
        <Box sx={{ width: 200, px: 3, py: 2 }}>
          <Suspense fallback={null}>
            <VolumeSlider
              value={volume}
              onChange={(next) => {
                setVolume(next);
                storeVolume(next);
              }}
            />
          </Suspense>
        </Box>
      </Popover>
    </>
  );
}
