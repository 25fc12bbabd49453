import { useState } from 'react';
import { Box, IconButton, Popover, Slider, Tooltip } from '@mui/material';
import VolumeDownIcon from '@mui/icons-material/VolumeDown';
import VolumeOffIcon from '@mui/icons-material/VolumeOff';
import VolumeUpIcon from '@mui/icons-material/VolumeUp';
import { useTranslation } from 'react-i18next';
import { readVolume, storeVolume } from '../../lib/sound';

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
          <Slider
            value={volume}
            min={0}
            max={1}
            step={0.1}
            aria-label={t('topBar.volume')}
            valueLabelDisplay="auto"
            data-testid="volume-slider"
            onChange={(_, value) => {
              const next = Array.isArray(value) ? value[0] : value;
              setVolume(next);
              storeVolume(next);
            }}
          />
        </Box>
      </Popover>
    </>
  );
}
