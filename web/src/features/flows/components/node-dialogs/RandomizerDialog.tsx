/** The randomizer node: the split between its two exits. */
import { Controller } from 'react-hook-form';
import { Box, Slider, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { RANDOMIZER_STEP, randomizerFormSchema } from '../../utils/nodes';
import { FormDialog, type NodeDialogProps } from './shell';

export function RandomizerDialog({ data, onSubmit, onClose }: NodeDialogProps<'randomizer'>) {
  const { t } = useTranslation();
  const percent = data?.percent ?? 50;
  return (
    <FormDialog schema={randomizerFormSchema} defaults={{ percent }} onValues={(v) => onSubmit({ ...data, percent: v.percent })} type="randomizer" editing={!!data} onClose={onClose}>
      {(form) => (
        <Controller
          control={form.control}
          name="percent"
          render={({ field }) => (
            <Box sx={{ px: 1 }}>
              <Typography gutterBottom>{t('flows.dialog.percent', { percent: field.value })}</Typography>
              <Slider
                value={field.value}
                onChange={(_event, value) => field.onChange(value as number)}
                min={0}
                max={100}
                step={RANDOMIZER_STEP}
                marks
                valueLabelDisplay="auto"
                slotProps={{ input: { 'data-testid': 'node-randomizer-percent' } as object }}
              />
            </Box>
          )}
        />
      )}
    </FormDialog>
  );
}
