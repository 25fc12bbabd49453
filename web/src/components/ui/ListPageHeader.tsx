import { Button, InputAdornment, Stack, TextField, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslation } from 'react-i18next';

interface ListPageHeaderProps {
  title: string;
  search: string;
  onSearch: (value: string) => void;
  searchPlaceholder: string;
  addLabel: string;
  onAdd: () => void;
  /** Prefix of the test ids: `<prefix>-search`, `<prefix>-add`. */
  testId: string;
}

/** The head of a list page: its title, a search field and an add button. */
export function ListPageHeader({ title, search, onSearch, searchPlaceholder, addLabel, onAdd, testId }: ListPageHeaderProps) {
  const { t } = useTranslation();
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
      <Typography variant="h5" component="h1">
        {title}
      </Typography>
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          placeholder={searchPlaceholder}
          value={search}
          onChange={(event) => onSearch(event.target.value)}
          slotProps={{
            htmlInput: { 'data-testid': `${testId}-search`, 'aria-label': t('common.search') },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
        <Button variant="contained" startIcon={<AddIcon />} onClick={onAdd} data-testid={`${testId}-add`} sx={{ flexShrink: 0 }}>
          {addLabel}
        </Button>
      </Stack>
    </Stack>
  );
}
