import { useCallback, useRef, useState, type ChangeEvent } from 'react';
import {
  Box,
  Button,
  Chip,
  IconButton,
  InputAdornment,
  ListItemIcon,
  ListItemText,
  Menu,
  MenuItem,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import CampaignIcon from '@mui/icons-material/Campaign';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import EditIcon from '@mui/icons-material/Edit';
import MoreVertIcon from '@mui/icons-material/MoreVert';
import SearchIcon from '@mui/icons-material/Search';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { useDebouncedValue } from '../../../lib/hooks/useDebouncedValue';
import { useNearBottom } from '../../../lib/hooks/useNearBottom';
import { translateError } from '../../../lib/i18n/errors';
import { toast } from '../../../lib/toast';
import { toastFlowError } from '../utils/errors';
import { exportFlow, flowSearchParam, useDeleteFlow, useDuplicateFlow, useFlows, useImportFlow } from '../api/flows';
import { useFlowsRealtime } from '../hooks/useFlowsRealtime';
import type { FlowSummary } from '../types';
import { FlowNameDialog } from './FlowNameDialog';

/** Flow list (spec 3 §2.12, route /flowbuilders). */
export default function FlowsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(flowSearchParam(search), 500);
  const flows = useFlows(debounced);
  const remove = useDeleteFlow();
  const duplicate = useDuplicateFlow();
  const importFlow = useImportFlow();
  const [nameDialog, setNameDialog] = useState<{ flow: FlowSummary | null } | null>(null);
  const [toDelete, setToDelete] = useState<FlowSummary | null>(null);
  const [menu, setMenu] = useState<{ anchor: HTMLElement; flow: FlowSummary } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  useFlowsRealtime();

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = flows;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const onScroll = useNearBottom(loadMore, 100);
  const rows = flows.data?.pages.flatMap((page) => page.flows) ?? [];
  const openEditor = (flow: FlowSummary) => void navigate(`/flowbuilder/${flow.id}`);

  const closeMenu = () => setMenu(null);
  const onAction = (action: 'rename' | 'edit' | 'duplicate' | 'delete' | 'export') => {
    if (!menu) return;
    const { flow } = menu;
    closeMenu();
    if (action === 'rename') setNameDialog({ flow });
    else if (action === 'edit') openEditor(flow);
    else if (action === 'delete') setToDelete(flow);
    else if (action === 'duplicate')
      duplicate.mutate(flow.id, { onSuccess: () => toast.success(t('flows.duplicated')), onError: (error) => toastFlowError(error, t) });
    else exportFlow(flow.id, flow.name).catch((error: unknown) => toastFlowError(error, t));
  };

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('flows.deleted')),
      onError: (error) => toastFlowError(error, t),
      onSettled: () => setToDelete(null),
    });
  };

  const onImportFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await file.text());
    } catch {
      toast.error(t('flows.importInvalid'));
      return;
    }
    if (!parsed || typeof parsed !== 'object' || !('flow' in parsed)) {
      toast.error(t('flows.importInvalid'));
      return;
    }
    importFlow.mutate(parsed, { onSuccess: () => toast.success(t('flows.imported')), onError: (error) => toastFlowError(error, t) });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="flows-page">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('flows.title')}
        </Typography>
        <Stack direction="row" spacing={1}>
          <TextField
            size="small"
            placeholder={t('flows.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value.toLowerCase())}
            slotProps={{
              htmlInput: { 'data-testid': 'flows-search', 'aria-label': t('common.search') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          <Button variant="text" startIcon={<CampaignIcon />} onClick={() => void navigate('/phrase-lists')} data-testid="flows-phrase-lists" sx={{ flexShrink: 0 }}>
            {t('flows.phraseCampaigns')}
          </Button>
          <Button variant="outlined" startIcon={<UploadFileIcon />} onClick={() => fileInput.current?.click()} disabled={importFlow.isPending} data-testid="flows-import" sx={{ flexShrink: 0 }}>
            {t('flows.import')}
          </Button>
          <input ref={fileInput} type="file" accept=".json,application/json" hidden onChange={(event) => void onImportFile(event)} data-testid="flows-import-file" />
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setNameDialog({ flow: null })} data-testid="flows-add" sx={{ flexShrink: 0 }}>
            {t('flows.add')}
          </Button>
        </Stack>
      </Stack>
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer onScroll={onScroll} sx={{ maxHeight: 'calc(100vh - 200px)' }} data-testid="flows-table-container">
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('flows.name')}</TableCell>
                <TableCell align="center">{t('flows.status')}</TableCell>
                <TableCell align="right">{t('flows.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((flow) => (
                <TableRow key={flow.id} hover data-testid={`flows-row-${flow.id}`}>
                  <TableCell onClick={() => openEditor(flow)} sx={{ cursor: 'pointer' }} data-testid={`flows-open-${flow.id}`}>
                    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                      <AccountTreeIcon fontSize="small" color="action" />
                      <span>{flow.name}</span>
                    </Stack>
                  </TableCell>
                  <TableCell align="center" onClick={() => openEditor(flow)} sx={{ cursor: 'pointer' }}>
                    <Chip size="small" color={flow.active ? 'success' : 'default'} label={flow.active ? t('flows.active') : t('flows.inactive')} />
                  </TableCell>
                  <TableCell align="right">
                    <IconButton size="small" aria-label={t('flows.menu.open')} onClick={(event) => setMenu({ anchor: event.currentTarget, flow })} data-testid={`flows-menu-${flow.id}`}>
                      <MoreVertIcon fontSize="small" />
                    </IconButton>
                  </TableCell>
                </TableRow>
              ))}
              {flows.isError && (
                <TableRow>
                  <TableCell colSpan={3} align="center" data-testid="flows-error">
                    {translateError(flows.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {flows.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={3} align="center" data-testid="flows-empty">
                    {t('flows.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {(flows.isPending || isFetchingNextPage) && (
            <Box>
              <PageLoader />
            </Box>
          )}
        </TableContainer>
      </Paper>
      <Menu anchorEl={menu?.anchor} open={!!menu} onClose={closeMenu} data-testid="flows-actions">
        <MenuItem onClick={() => onAction('rename')} data-testid="flows-action-rename">
          <ListItemIcon>
            <EditIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('flows.menu.rename')}</ListItemText>
        </MenuItem>
        <MenuItem onClick={() => onAction('edit')} data-testid="flows-action-edit">
          <ListItemIcon>
            <AccountTreeIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('flows.menu.edit')}</ListItemText>
        </MenuItem>
        <MenuItem onClick={() => onAction('duplicate')} data-testid="flows-action-duplicate">
          <ListItemIcon>
            <ContentCopyIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('flows.menu.duplicate')}</ListItemText>
        </MenuItem>
        <MenuItem onClick={() => onAction('export')} data-testid="flows-action-export">
          <ListItemIcon>
            <DownloadIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('flows.menu.export')}</ListItemText>
        </MenuItem>
        <MenuItem onClick={() => onAction('delete')} data-testid="flows-action-delete">
          <ListItemIcon>
            <DeleteOutlineIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>{t('flows.menu.delete')}</ListItemText>
        </MenuItem>
      </Menu>
      {nameDialog && <FlowNameDialog flow={nameDialog.flow} onClose={() => setNameDialog(null)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('flows.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="flows-delete-dialog"
      >
        {t('flows.deleteText')}
      </ConfirmDialog>
    </Stack>
  );
}
