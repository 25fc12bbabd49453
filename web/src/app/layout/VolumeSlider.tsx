import { Slider } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** The volume slider of the top bar's popover: a chunk of its own, fetched when the popover opens. */
export default function VolumeSlider({ value, onChange }: { value: number; onChange: (value: number) => void }) {
  const { t } = useTranslation();
  return (
    <Slider
      value={value}
      min={0}
      max={1}
      step={0.1}
      aria-label={t('topBar.volume')}
      valueLabelDisplay="auto"
      data-testid="volume-slider"
      onChange={(_, next) => onChange(Array.isArray(next) ? next[0] : next)}
    />
  );
}
