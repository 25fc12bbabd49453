import { Checkbox, ListItemText, MenuItem, TextField } from '@mui/material';

interface MultiSelectProps {
  label: string;
  options: { id: number; name: string }[];
  value: number[];
  onChange: (value: number[]) => void;
  testId: string;
}

/** A select of several options (ids), with a checkbox each: the inbox's queue and filter choices. */
export function MultiSelect({ label, options, value, onChange, testId }: MultiSelectProps) {
  return (
    <TextField
      select
      size="small"
      fullWidth
      label={label}
      value={value}
      onChange={(e) => {
        const raw = e.target.value as unknown;
        onChange(Array.isArray(raw) ? raw.map(Number) : String(raw).split(',').filter(Boolean).map(Number));
      }}
      slotProps={{
        select: {
          multiple: true,
          renderValue: (selected) => options.filter((o) => (selected as number[]).includes(o.id)).map((o) => o.name).join(', '),
        },
        htmlInput: { 'data-testid': testId },
      }}
    >
      {options.map((option) => (
        <MenuItem key={option.id} value={option.id}>
          <Checkbox size="small" checked={value.includes(option.id)} />
          <ListItemText primary={option.name} />
        </MenuItem>
      ))}
    </TextField>
  );
}
