import { Controller, useFormContext } from 'react-hook-form';
import { MenuItem, TextField, type TextFieldProps } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { translateFieldCode } from '../../lib/i18n/errors';

export interface SelectOption {
  value: string | number;
  label: string;
}

type FormSelectFieldProps = Omit<TextFieldProps, 'name' | 'select' | 'value' | 'onChange'> & {
  name: string;
  options: SelectOption[];
  testId?: string;
  /** Multiple selection (value is an array). */
  multiple?: boolean;
};

export function FormSelectField({ name, options, testId, multiple, helperText, slotProps, ...rest }: FormSelectFieldProps) {
  const { control } = useFormContext();
  const { t } = useTranslation();
  return (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <TextField
          {...rest}
          select
          name={field.name}
          inputRef={field.ref}
          value={field.value ?? (multiple ? [] : '')}
          onBlur={field.onBlur}
          onChange={(event) => field.onChange(event.target.value)}
          error={!!fieldState.error}
          helperText={translateFieldCode(fieldState.error?.message, t) ?? helperText}
          slotProps={{
            ...slotProps,
            select: {
              multiple,
              SelectDisplayProps: { 'data-testid': testId } as object,
              renderValue: multiple
                ? (selected: unknown) =>
                    options
                      .filter((o) => (selected as unknown[]).includes(o.value))
                      .map((o) => o.label)
                      .join(', ')
                : undefined,
            },
          }}
        >
          {options.map((option) => (
            <MenuItem key={option.value} value={option.value} data-testid={testId ? `${testId}-option-${option.value}` : undefined}>
              {option.label}
            </MenuItem>
          ))}
        </TextField>
      )}
    />
  );
}
