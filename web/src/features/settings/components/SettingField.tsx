import { useState } from 'react';
import { MenuItem, TextField } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { SettingDefinition } from '../options';

interface SettingFieldProps {
  definition: SettingDefinition;
  value: string | undefined;
  disabled?: boolean;
  onSave: (value: string) => void;
}

/** One setting: selects save on change, text fields on blur when changed. */
export function SettingField({ definition, value, disabled, onSave }: SettingFieldProps) {
  const { t } = useTranslation();
  const { key, control, fallback } = definition;
  const current = value ?? fallback;
  const label = t(`settings.keys.${key}`);
  const testId = `setting-${key}`;

  if (control.kind === 'text') {
    return (
      <SettingTextField
        key={current}
        label={label}
        initial={current}
        multiline={control.multiline}
        secret={control.secret}
        disabled={disabled}
        testId={testId}
        onSave={onSave}
      />
    );
  }

  const options =
    control.kind === 'toggle'
      ? [
          { value: 'enabled', label: t('settings.values.enabled') },
          { value: 'disabled', label: t('settings.values.disabled') },
        ]
      : control.options.map((option) => ({
          value: option,
          label: control.labels === 'scheduleTypes' ? t(`settings.scheduleTypes.${option as 'disabled'}`) : t(`settings.chatBotTypes.${option as 'text'}`),
        }));
  const known = options.some((option) => option.value === current);

  return (
    <TextField
      select
      fullWidth
      size="small"
      label={label}
      value={known ? current : ''}
      disabled={disabled}
      onChange={(event) => {
        if (event.target.value !== current) onSave(event.target.value);
      }}
      slotProps={{ select: { SelectDisplayProps: { 'data-testid': testId } as object } }}
    >
      {options.map((option) => (
        <MenuItem key={option.value} value={option.value} data-testid={`${testId}-option-${option.value}`}>
          {option.label}
        </MenuItem>
      ))}
    </TextField>
  );
}

interface SettingTextFieldProps {
  label: string;
  initial: string;
  multiline?: boolean;
  secret?: boolean;
  disabled?: boolean;
  testId: string;
  onSave: (value: string) => void;
}

function SettingTextField({ label, initial, multiline, secret, disabled, testId, onSave }: SettingTextFieldProps) {
  const [text, setText] = useState(initial);
  return (
    <TextField
      fullWidth
      size="small"
      label={label}
      value={text}
      type={secret ? 'password' : 'text'}
      autoComplete="off"
      multiline={multiline}
      minRows={multiline ? 2 : undefined}
      disabled={disabled}
      onChange={(event) => setText(event.target.value)}
      onBlur={() => {
        if (text !== initial) onSave(text);
      }}
      slotProps={{ htmlInput: { 'data-testid': testId } }}
    />
  );
}
