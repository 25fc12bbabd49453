import { Controller, useFormContext } from 'react-hook-form';
import { FormControlLabel, Switch } from '@mui/material';

interface FormSwitchFieldProps {
  name: string;
  label: string;
  testId?: string;
  /** Wire values when the field is not a boolean, e.g. ['enabled', 'disabled']. */
  values?: readonly [on: string, off: string];
  disabled?: boolean;
}

export function FormSwitchField({ name, label, testId, values, disabled }: FormSwitchFieldProps) {
  const { control } = useFormContext();
  return (
    <Controller
      name={name}
      control={control}
      render={({ field }) => (
        <FormControlLabel
          label={label}
          control={
            <Switch
              name={field.name}
              disabled={disabled}
              checked={values ? field.value === values[0] : !!field.value}
              onChange={(_, checked) => field.onChange(values ? (checked ? values[0] : values[1]) : checked)}
              slotProps={{ input: { 'data-testid': testId } as object }}
            />
          }
        />
      )}
    />
  );
}
