import { useMemo, useState } from 'react';
import { Autocomplete, MenuItem, TextField, createFilterOptions } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { timeZoneOptions, type SettingDefinition } from '../options';

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

  if (control.kind === 'timezone') {
    return <TimeZoneField label={label} value={current} disabled={disabled} testId={testId} onSave={onSave} />;
  }

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

/** Zones match by their name with or without underscores (`sao_paulo`, `sao paulo`). */
const filterZones = createFilterOptions<string>({ stringify: (zone) => `${zone} ${zone.replaceAll('_', ' ')}` });

interface TimeZoneFieldProps {
  label: string;
  value: string;
  disabled?: boolean;
  testId: string;
  onSave: (value: string) => void;
}

/** The company time zone: a searchable list of IANA names, saved when another one is picked. */
function TimeZoneField({ label, value, disabled, testId, onSave }: TimeZoneFieldProps) {
  const { t } = useTranslation();
  const options = useMemo(() => timeZoneOptions(value), [value]);
  return (
    <Autocomplete
      options={options}
      value={value}
      disableClearable
      disabled={disabled}
      size="small"
      noOptionsText={t('settings.noTimeZones')}
      filterOptions={filterZones}
      getOptionLabel={(zone) => zone.replaceAll('_', ' ')}
      onChange={(_event, zone) => {
        if (zone && zone !== value) onSave(zone);
      }}
      renderOption={(props, zone) => (
        <li {...props} key={zone} data-testid={`${testId}-option-${zone}`}>
          {zone.replaceAll('_', ' ')}
        </li>
      )}
      renderInput={(params) => (
        <TextField {...params} label={label} slotProps={{ ...params.slotProps, htmlInput: { ...params.slotProps.htmlInput, 'data-testid': testId } }} />
      )}
    />
  );
}
