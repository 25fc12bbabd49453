import { Collapse, FormControlLabel, Stack, Switch } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { MultiSelect } from './MultiSelect';

interface Option {
  id: number;
  name: string;
}

interface Props {
  open: boolean;
  /** The filter by attendants (the core's `filterByUsers`). */
  filterByUsers: boolean;
  tags: Option[];
  users: Option[];
  connections: Option[];
  tagIds: number[];
  onTagIds: (ids: number[]) => void;
  userIds: number[];
  onUserIds: (ids: number[]) => void;
  whatsappIds: number[];
  onWhatsappIds: (ids: number[]) => void;
  /** Whether the search looks in message bodies; null outside the search tab (no switch). */
  searchOnMessages: boolean | null;
  onSearchOnMessages: (value: boolean) => void;
}

/**
 * The inbox's filter panel (tags, attendants for admins, connections, and in the search tab
 * whether to search message bodies), folding open under the search box. A chunk of its own,
 * loaded when the panel is first opened.
 */
export default function TicketFilters(props: Props) {
  const { t } = useTranslation();
  const { searchOnMessages, onSearchOnMessages } = props;
  return (
    <Collapse in={props.open}>
      <Stack spacing={1} sx={{ px: 1, pb: 1 }}>
        <MultiSelect label={t('tickets.filters.tags')} options={props.tags} value={props.tagIds} onChange={props.onTagIds} testId="tickets-filter-tags" />
        {props.filterByUsers && <MultiSelect label={t('tickets.filters.users')} options={props.users} value={props.userIds} onChange={props.onUserIds} testId="tickets-filter-users" />}
        <MultiSelect label={t('tickets.filters.connections')} options={props.connections} value={props.whatsappIds} onChange={props.onWhatsappIds} testId="tickets-filter-connections" />
        {searchOnMessages !== null && (
          <FormControlLabel
            control={<Switch size="small" checked={searchOnMessages} onChange={(e) => onSearchOnMessages(e.target.checked)} slotProps={{ input: { 'aria-label': t('tickets.filters.searchOnMessages') } }} data-testid="tickets-search-on-messages" />}
            label={t('tickets.filters.searchOnMessages')}
          />
        )}
      </Stack>
    </Collapse>
  );
}
