import { useMemo, useState } from 'react';
import {
  Badge,
  Box,
  Button,
  Checkbox,
  Collapse,
  FormControlLabel,
  IconButton,
  InputAdornment,
  ListItemText,
  MenuItem,
  Stack,
  Switch,
  Tab,
  Tabs,
  TextField,
  Tooltip,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ClearAllIcon from '@mui/icons-material/ClearAll';
import FilterListIcon from '@mui/icons-material/FilterList';
import SearchIcon from '@mui/icons-material/Search';
import SwapVertIcon from '@mui/icons-material/SwapVert';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/ui';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { toast, toastError } from '../../../lib/toast';
import { useAuthenticatedSession } from '../../../lib/session';
import { useConnectionOptions, useTagOptions, useUserOptions } from '../api/lookups';
import { useCloseAllTickets, type TicketListParams } from '../api/tickets';
import { useTicketActions } from '../hooks/useTicketActions';
import type { TicketTab } from '../types';
import { NewTicketDialog } from './NewTicketDialog';
import { TicketsList } from './TicketsList';

interface MultiSelectProps {
  label: string;
  options: { id: number; name: string }[];
  value: number[];
  onChange: (value: number[]) => void;
  testId: string;
}

function MultiSelect({ label, options, value, onChange, testId }: MultiSelectProps) {
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

/** The inbox panel (spec 1 "Tickets inbox"): search, tabs, toggles, queue and filter choices, the list. */
export function TicketsManager({ selectedUuid }: { selectedUuid: string | undefined }) {
  const { t } = useTranslation();
  const session = useAuthenticatedSession();
  const { user, permissions } = session;
  const isAdmin = user.profile === 'admin';
  const canShowAll = permissions.includes('tickets-manager:showall');
  // Capabilities from the server; the user flags are the fallback of an older server.
  const canClosePending = permissions.includes('tickets:close-pending') || user.userClosePendingTicket === 'enabled';
  const showGroups = permissions.includes('tickets:groups') || user.allowGroup;
  const userQueues = useMemo(() => user.queues ?? [], [user.queues]);

  const [tab, setTab] = useState<TicketTab>('open');
  const [searchText, setSearchText] = useState('');
  const search = useDebouncedValue(searchText.trim(), 500);
  const [searchOnMessages, setSearchOnMessages] = useState(false);
  const [showAll, setShowAll] = useState(false);
  const [sort, setSort] = useState<'ASC' | 'DESC'>('DESC');
  const [queueIds, setQueueIds] = useState<number[]>(() => userQueues.map((q) => q.id));
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [tagIds, setTagIds] = useState<number[]>([]);
  const [userIds, setUserIds] = useState<number[]>([]);
  const [whatsappIds, setWhatsappIds] = useState<number[]>([]);
  const [newTicket, setNewTicket] = useState(false);
  const tags = useTagOptions();
  const users = useUserOptions(isAdmin);
  const connections = useConnectionOptions();
  const actions = useTicketActions();
  const canCloseAll = permissions.includes('tickets-manager:closeAll');
  const closeAll = useCloseAllTickets();
  const [confirmCloseAll, setConfirmCloseAll] = useState(false);

  const tabs: TicketTab[] = showGroups ? ['open', 'pending', 'group', 'closed', 'search'] : ['open', 'pending', 'closed', 'search'];
  const params: TicketListParams = {
    tab,
    search: tab === 'search' ? search : '',
    searchOnMessages,
    // Plain users search with showAll off (spec 1 §6).
    showAll: canShowAll && showAll && !(tab === 'search' && !isAdmin),
    queueIds,
    tagIds,
    userIds: isAdmin ? userIds : [],
    whatsappIds,
    sort,
    userId: user.id,
  };
  const activeFilters = tagIds.length + (isAdmin ? userIds.length : 0) + whatsappIds.length;
  const sortable = tab !== 'closed' && tab !== 'search';

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }} data-testid="tickets-manager">
      <Stack direction="row" spacing={1} sx={{ p: 1, alignItems: 'center' }}>
        <TextField
          size="small"
          fullWidth
          placeholder={t('tickets.searchPlaceholder')}
          value={searchText}
          onChange={(e) => {
            setSearchText(e.target.value);
            if (e.target.value.trim()) setTab('search');
          }}
          slotProps={{
            input: { startAdornment: <InputAdornment position="start"><SearchIcon fontSize="small" /></InputAdornment> },
            htmlInput: { 'data-testid': 'tickets-search' },
          }}
        />
        <Tooltip title={t('tickets.filters.title')}>
          <IconButton onClick={() => setFiltersOpen((v) => !v)} aria-label={t('tickets.filters.title')} data-testid="tickets-filters-toggle">
            <Badge badgeContent={activeFilters} color="primary">
              <FilterListIcon />
            </Badge>
          </IconButton>
        </Tooltip>
        <Button variant="contained" size="small" startIcon={<AddIcon />} onClick={() => setNewTicket(true)} data-testid="tickets-new" sx={{ whiteSpace: 'nowrap' }}>
          {t('tickets.new')}
        </Button>
      </Stack>
      <Collapse in={filtersOpen}>
        <Stack spacing={1} sx={{ px: 1, pb: 1 }}>
          <MultiSelect label={t('tickets.filters.tags')} options={tags.data ?? []} value={tagIds} onChange={setTagIds} testId="tickets-filter-tags" />
          {isAdmin && <MultiSelect label={t('tickets.filters.users')} options={users.data ?? []} value={userIds} onChange={setUserIds} testId="tickets-filter-users" />}
          <MultiSelect
            label={t('tickets.filters.connections')}
            options={connections.data ?? []}
            value={whatsappIds}
            onChange={setWhatsappIds}
            testId="tickets-filter-connections"
          />
          {tab === 'search' && (
            <FormControlLabel
              control={<Switch size="small" checked={searchOnMessages} onChange={(e) => setSearchOnMessages(e.target.checked)} />}
              label={t('tickets.filters.searchOnMessages')}
            />
          )}
        </Stack>
      </Collapse>
      <Tabs value={tab} onChange={(_e, value: TicketTab) => setTab(value)} variant="scrollable" scrollButtons="auto" sx={{ borderBottom: 1, borderColor: 'divider', minHeight: 40 }}>
        {tabs.map((value) => (
          <Tab key={value} value={value} label={t(`tickets.tabs.${value}`)} data-testid={`tickets-tab-${value}`} sx={{ minHeight: 40, minWidth: 72 }} />
        ))}
      </Tabs>
      <Stack direction="row" spacing={1} sx={{ px: 1, py: 0.5, alignItems: 'center' }}>
        {canShowAll && (
          <FormControlLabel
            control={<Switch size="small" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} slotProps={{ input: { 'aria-label': t('tickets.showAll') } }} data-testid="tickets-show-all" />}
            label={t('tickets.showAll')}
            sx={{ mr: 0 }}
          />
        )}
        {sortable && (
          <Tooltip title={sort === 'DESC' ? t('tickets.sortDesc') : t('tickets.sortAsc')}>
            <IconButton size="small" onClick={() => setSort((s) => (s === 'DESC' ? 'ASC' : 'DESC'))} aria-label={t('tickets.sort')} data-testid="tickets-sort" data-sort={sort}>
              <SwapVertIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
        {canCloseAll && (tab === 'open' || tab === 'pending' || tab === 'group') && (
          <Tooltip title={t('tickets.closeAll.button')}>
            <IconButton size="small" onClick={() => setConfirmCloseAll(true)} aria-label={t('tickets.closeAll.button')} data-testid="tickets-close-all">
              <ClearAllIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
        <Box sx={{ flex: 1, minWidth: 120 }}>
          <MultiSelect label={t('tickets.queues')} options={userQueues} value={queueIds} onChange={setQueueIds} testId="tickets-queues" />
        </Box>
      </Stack>
      <TicketsList params={params} selectedUuid={selectedUuid} showOwner={isAdmin} canClosePending={canClosePending} onAction={actions.run} />
      {actions.dialogs}
      <NewTicketDialog open={newTicket} onClose={() => setNewTicket(false)} />
      <ConfirmDialog
        open={confirmCloseAll}
        title={t('tickets.closeAll.title')}
        onClose={() => setConfirmCloseAll(false)}
        busy={closeAll.isPending}
        testId="tickets-close-all-confirm"
        onConfirm={() => {
          setConfirmCloseAll(false);
          closeAll.mutate(
            { status: tab, selectedQueueIds: queueIds },
            { onSuccess: (result) => toast.success(t('tickets.closeAll.done', { count: result.closed })), onError: toastError },
          );
        }}
      >
        {t('tickets.closeAll.message', { status: t(`tickets.tabs.${tab}`) })}
      </ConfirmDialog>
    </Box>
  );
}
