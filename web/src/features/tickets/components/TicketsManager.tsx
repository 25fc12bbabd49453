import { lazy, useMemo, useState } from 'react';
import {
  Badge,
  Box,
  Button,
  FormControlLabel,
  IconButton,
  InputAdornment,
  Stack,
  Switch,
  Tab,
  Tabs,
  TextField,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ClearAllIcon from '@mui/icons-material/ClearAll';
import FilterListIcon from '@mui/icons-material/FilterList';
import SearchIcon from '@mui/icons-material/Search';
import SwapVertIcon from '@mui/icons-material/SwapVert';
import { useTranslation } from 'react-i18next';
import { Tooltip } from '../../../components/Tooltip';
import { WhenOpened } from '../../../components/WhenOpened';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { toast, toastError } from '../../../lib/toast';
import { useAuthenticatedSession } from '../../../lib/session';
import { useConnectionOptions, useTagOptions, useUserOptions } from '../../../lib/lookups/options';
import type { InboxControls } from '../../../lib/wasm/rules';
import { useRules } from '../../../lib/wasm/useRules';
import { useCloseAllTickets, type TicketListParams } from '../api/tickets';
import { useTicketActions } from '../hooks/useTicketActions';
import type { TicketTab } from '../types';
import { ConfirmDialog, NewTicketDialog } from './lazyDialogs';
import { MultiSelect } from './MultiSelect';
import { TicketsList } from './TicketsList';

/** The filter panel loads when first opened (its Collapse is not in the inbox's first load). */
const TicketFilters = lazy(() => import('./TicketFilters'));

/** The controls every signed-in user has, shown until the core's rules are loaded. */
const EVERYONE: InboxControls = {
  tabs: ['open', 'pending', 'closed', 'search'],
  showAll: false,
  showAllInSearch: false,
  filterByUsers: false,
  showOwner: false,
  closePending: false,
  closeAll: false,
};

/** The inbox panel (spec 1 "Tickets inbox"): search, tabs, toggles, queue and filter choices, the list. */
export function TicketsManager({ selectedUuid }: { selectedUuid: string | undefined }) {
  const { t } = useTranslation();
  const session = useAuthenticatedSession();
  const { user } = session;
  // What the user may do here is the core's answer (policy through WASM). Until the module is in
  // (a moment after the first render) the panel shows the controls everyone has.
  const rules = useRules();
  const controls = useMemo(() => rules?.inboxControls(user) ?? EVERYONE, [rules, user]);
  const userQueues = useMemo(() => user.queues ?? [], [user.queues]);

  const [tab, setTab] = useState<TicketTab>('open');
  const [searchText, setSearchText] = useState('');
  const search = useDebouncedValue(searchText.trim(), 500);
  // The box searches message bodies too, as its placeholder says; the filter panel narrows it to
  // contacts and ticket numbers.
  const [searchOnMessages, setSearchOnMessages] = useState(true);
  const [showAll, setShowAll] = useState(false);
  const [sort, setSort] = useState<'ASC' | 'DESC'>('DESC');
  const [queueIds, setQueueIds] = useState<number[]>(() => userQueues.map((q) => q.id));
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [tagIds, setTagIds] = useState<number[]>([]);
  const [userIds, setUserIds] = useState<number[]>([]);
  const [whatsappIds, setWhatsappIds] = useState<number[]>([]);
  const [newTicket, setNewTicket] = useState(false);
  const tags = useTagOptions();
  const users = useUserOptions(controls.filterByUsers);
  const connections = useConnectionOptions();
  const actions = useTicketActions();
  const closeAll = useCloseAllTickets();
  const [confirmCloseAll, setConfirmCloseAll] = useState(false);

  const tabs: TicketTab[] = controls.tabs;
  const params: TicketListParams = {
    tab,
    search: tab === 'search' ? search : '',
    searchOnMessages,
    // Plain users search with showAll off (spec 1 §6).
    showAll: showAll && (tab === 'search' ? controls.showAllInSearch : controls.showAll),
    queueIds,
    tagIds,
    userIds: controls.filterByUsers ? userIds : [],
    whatsappIds,
    sort,
    userId: user.id,
  };
  const activeFilters = tagIds.length + (controls.filterByUsers ? userIds.length : 0) + whatsappIds.length;
  const sortable = tab !== 'closed' && tab !== 'search';

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flex: '1 1 0px', minHeight: 0 }} data-testid="tickets-manager">
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
      <WhenOpened open={filtersOpen}>
        <TicketFilters
          open={filtersOpen}
          filterByUsers={controls.filterByUsers}
          tags={tags.data ?? []}
          users={users.data ?? []}
          connections={connections.data ?? []}
          tagIds={tagIds}
          onTagIds={setTagIds}
          userIds={userIds}
          onUserIds={setUserIds}
          whatsappIds={whatsappIds}
          onWhatsappIds={setWhatsappIds}
          searchOnMessages={tab === 'search' ? searchOnMessages : null}
          onSearchOnMessages={setSearchOnMessages}
        />
      </WhenOpened>
      <Tabs value={tab} onChange={(_e, value: TicketTab) => setTab(value)} variant="scrollable" scrollButtons="auto" sx={{ borderBottom: 1, borderColor: 'divider', minHeight: 40 }}>
        {tabs.map((value) => (
          <Tab key={value} value={value} label={t(`tickets.tabs.${value}`)} data-testid={`tickets-tab-${value}`} sx={{ minHeight: 40, minWidth: 72 }} />
        ))}
      </Tabs>
      <Stack direction="row" spacing={1} sx={{ px: 1, py: 0.5, alignItems: 'center' }}>
        {controls.showAll && (
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
        {controls.closeAll && (tab === 'open' || tab === 'pending' || tab === 'group') && (
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
      <TicketsList params={params} selectedUuid={selectedUuid} showOwner={controls.showOwner} canClosePending={controls.closePending} onAction={actions.run} />
      {actions.dialogs}
      <WhenOpened open={newTicket}>
        <NewTicketDialog open={newTicket} onClose={() => setNewTicket(false)} />
      </WhenOpened>
      <WhenOpened open={confirmCloseAll}>
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
      </WhenOpened>
    </Box>
  );
}
