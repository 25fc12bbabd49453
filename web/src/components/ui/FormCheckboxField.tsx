import { Controller, useFormContext } from 'react-hook-form';
import { Checkbox, FormControlLabel } from '@mui/material';

interface FormCheckboxFieldProps {
  name: string;
  label: string;
  testId?: string;
  disabled?: boolean;
}

/** A boolean form field as a checkbox with its label. */
export function FormCheckboxField({ name, label, testId, disabled }: FormCheckboxFieldProps) {
  const { control } = useFormContext();
  return (
    <Controller
      name={name}
      control={control}
      render={({ field }) => (
        <FormControlLabel
          label={label}
          control={
            <Checkbox
              name={field.name}
              disabled={disabled}
              checked={!!field.value}
              onChange={(_, checked) => field.onChange(checked)}
              slotProps={{ input: { 'data-testid': testId } as object }}
            />
          }
        />
      )}
    />
  );
}
