import { useState, type ReactNode } from 'react';
import { Controller, useFormContext } from 'react-hook-form';
import { IconButton, InputAdornment, TextField, type TextFieldProps } from '@mui/material';
import Visibility from '@mui/icons-material/Visibility';
import VisibilityOff from '@mui/icons-material/VisibilityOff';
import { useTranslation } from 'react-i18next';
import { translateFieldCode } from '../../lib/i18n/errors';

type FormTextFieldProps = Omit<TextFieldProps, 'name' | 'error' | 'value' | 'onChange' | 'onBlur'> & {
  name: string;
  testId?: string;
  /** Adds a show/hide button to a password field. */
  revealable?: boolean;
  /** Transforms what the user types before it reaches the form (e.g. a mask). */
  format?: (value: string) => string;
  /** Extra content under the field (e.g. a strength meter). */
  below?: ReactNode;
};

export function FormTextField({ name, testId, revealable, format, helperText, below, type, slotProps, ...rest }: FormTextFieldProps) {
  const { control } = useFormContext();
  const { t } = useTranslation();
  const [revealed, setRevealed] = useState(false);
  return (
    <Controller
      name={name}
      control={control}
      render={({ field, fieldState }) => (
        <>
          <TextField
            {...rest}
            name={field.name}
            inputRef={field.ref}
            value={field.value ?? ''}
            onBlur={field.onBlur}
            onChange={(event) => field.onChange(format ? format(event.target.value) : event.target.value)}
            type={revealable ? (revealed ? 'text' : 'password') : type}
            error={!!fieldState.error}
            helperText={translateFieldCode(fieldState.error?.message, t) ?? helperText}
            slotProps={{
              ...slotProps,
              htmlInput: { 'data-testid': testId, ...(slotProps?.htmlInput as object | undefined) },
              input: revealable
                ? {
                    endAdornment: (
                      <InputAdornment position="end">
                        <IconButton
                          aria-label={revealed ? t('login.hidePassword') : t('login.showPassword')}
                          onClick={() => setRevealed((v) => !v)}
                          edge="end"
                          size="small"
                          data-testid={testId ? `${testId}-reveal` : undefined}
                        >
                          {revealed ? <VisibilityOff /> : <Visibility />}
                        </IconButton>
                      </InputAdornment>
                    ),
                  }
                : slotProps?.input,
            }}
          />
          {below}
        </>
      )}
    />
  );
}
