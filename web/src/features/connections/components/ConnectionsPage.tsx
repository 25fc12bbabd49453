import { useCallback, useState } from 'react';
import {
  Box,
  Button,
  Chip,
  CircularProgress,
  IconButton,
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
  Tooltip,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import CropFreeIcon from '@mui/icons-material/CropFree';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import DialpadIcon from '@mui/icons-material/Dialpad';
import EditIcon from '@mui/icons-material/Edit';
import FacebookIcon from '@mui/icons-material/Facebook';
import InstagramIcon from '@mui/icons-material/Instagram';
import MonitorHeartOutlinedIcon from '@mui/icons-material/MonitorHeartOutlined';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import SignalCellular4BarIcon from '@mui/icons-material/SignalCellular4Bar';
import SignalCellularConnectedNoInternet0BarIcon from '@mui/icons-material/SignalCellularConnectedNoInternet0Bar';
import CropFreeOutlinedIcon from '@mui/icons-material/CropFreeOutlined';
import WhatsAppIcon from '@mui/icons-material/WhatsApp';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { translateError } from '../../../lib/i18n/errors';
import { useCan } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { useConnections, useDeleteConnection, useRestartAll, useSessionAction, type SessionAction } from '../api/connections';
import { useConnectionsRealtime } from '../hooks/useConnectionsRealtime';
import { useImportProgress } from '../hooks/useImportProgress';
import { formatTableDate, type Connection } from '../types';
import { sessionReasonText } from '../utils/session-reason';
import { ConnectionModal } from './ConnectionModal';
import { DeliveryHealthDialog } from './DeliveryHealthDialog';
import { DownSince, GapRowStatus } from './GapStatus';
import { CloseImportedButton, ImportProgressCards, ImportRowStatus } from './ImportStatus';
import { InboundFailures } from './InboundFailures';
import { QrCodeDialog } from './QrCodeDialog';

const WIDE_ONLY = { display: { xs: 'none', sm: 'table-cell' } } as const;

function ChannelIcon({ channel }: { channel: string }) {
  if (channel === 'facebook') return <FacebookIcon sx={{ color: '#3b5998' }} aria-label="Facebook" />;
  if (channel === 'instagram') return <InstagramIcon sx={{ color: '#e1306c' }} aria-label="Instagram" />;
  return <WhatsAppIcon sx={{ color: '#25d366' }} aria-label="WhatsApp" />;
}

function StatusIcon({ status }: { status: Connection['status'] }) {
  if (status === 'CONNECTED') return <SignalCellular4BarIcon color="success" fontSize="small" />;
  if (status === 'OPENING') return <CircularProgress size={16} />;
  if (status === 'qrcode') return <CropFreeOutlinedIcon fontSize="small" />;
  if (status === 'DISCONNECTED') return <SignalCellularConnectedNoInternet0BarIcon color="error" fontSize="small" />;
  return <SignalCellularConnectedNoInternet0BarIcon color="warning" fontSize="small" />;
}

/** Why the session is in its state, under the status, when the status alone does not say. */
function SessionReasonLine({ connection }: { connection: Connection }) {
  const { t } = useTranslation();
  const text = sessionReasonText(connection, t);
  if (!text) return null;
  return (
    <Typography
      variant="caption"
      color="text.secondary"
      component="div"
      title={connection.sessionReason?.message}
      data-testid={`connections-reason-${connection.id}`}
      data-reason={connection.sessionReason?.kind}
    >
      {text}
    </Typography>
  );
}

/**
 * Connections (spec 2 "/connections"): table, session actions, QR dialog, connection dialog, the
 * old-message import's progress cards, row marks and "close imported tickets" button, and, after
 * an outage, since when a connection is down and its last gap (docs/channels.md "Gaps after an outage").
 */
export default function ConnectionsPage() {
  const { t } = useTranslation();
  const connections = useConnections();
  useConnectionsRealtime();
  const importProgress = useImportProgress();
  const canAdd = useCan('connections-page:addConnection');
  const canEdit = useCan('connections-page:editOrDeleteConnection');
  const canSession = useCan('connections-page:actionButtons');
  // Inbound failures are for admins: the capability of administering users' privileges is the admins' one.
  const canSeeInboundFailures = useCan('user-modal:editProfile');
  const session = useSessionAction();
  const restart = useRestartAll();
  const remove = useDeleteConnection();
  const [addMenu, setAddMenu] = useState<HTMLElement | null>(null);
  const [modal, setModal] = useState<{ connection: Connection | null; channel: string } | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  const [toDelete, setToDelete] = useState<Connection | null>(null);
  const [toDisconnect, setToDisconnect] = useState<Connection | null>(null);
  const [confirmRestart, setConfirmRestart] = useState(false);
  const [healthFor, setHealthFor] = useState<Connection | null>(null);
  const closeQr = useCallback(() => setQrFor(null), []);

  const runSession = (connection: Connection, action: SessionAction) =>
    session.mutate({ id: connection.id, action }, { onError: (error) => toastError(error) });

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('connections.deleted')),
      onError: (error) => toastError(error),
      onSettled: () => setToDelete(null),
    });
  };

  const restartAll = () =>
    restart.mutate(undefined, {
      onSuccess: () => toast.success(t('connections.restartRequested')),
      onError: (error) => toastError(error),
      onSettled: () => setConfirmRestart(false),
    });

  const confirmDisconnect = () => {
    if (!toDisconnect) return;
    session.mutate({ id: toDisconnect.id, action: 'disconnect' }, { onError: (error) => toastError(error), onSettled: () => setToDisconnect(null) });
  };

  const sessionButtons = (connection: Connection) => {
    const id = connection.id;
    switch (connection.status) {
      case 'qrcode':
        return (
          <Button size="small" variant="contained" startIcon={<CropFreeIcon />} onClick={() => setQrFor(id)} data-testid={`connections-qr-${id}`}>
            {t('connections.buttons.qrcode')}
          </Button>
        );
      case 'DISCONNECTED':
        return (
          <Stack direction="row" spacing={1} sx={{ justifyContent: 'center' }}>
            <Button size="small" variant="outlined" onClick={() => runSession(connection, 'start')} disabled={!canSession} data-testid={`connections-retry-${id}`}>
              {t('connections.buttons.tryAgain')}
            </Button>
            <Button size="small" variant="outlined" color="secondary" onClick={() => runSession(connection, 'newQr')} disabled={!canSession} data-testid={`connections-newqr-${id}`}>
              {t('connections.buttons.newQr')}
            </Button>
          </Stack>
        );
      case 'PAIRING':
        // Linking by phone number: the code can be shown again; the session can be ended.
        return (
          <Stack direction="row" spacing={1} sx={{ justifyContent: 'center' }}>
            {connection.pairingCode && (
              <Button size="small" variant="contained" startIcon={<DialpadIcon />} onClick={() => setQrFor(id)} data-testid={`connections-paircode-${id}`}>
                {t('connections.buttons.pairCode')}
              </Button>
            )}
            <Button size="small" variant="outlined" color="error" onClick={() => setToDisconnect(connection)} disabled={!canSession} data-testid={`connections-disconnect-${id}`}>
              {t('connections.buttons.disconnect')}
            </Button>
          </Stack>
        );
      case 'OPENING':
        return (
          <Button size="small" variant="outlined" disabled startIcon={<CircularProgress size={14} />} data-testid={`connections-connecting-${id}`}>
            {t('connections.buttons.connecting')}
          </Button>
        );
      default:
        return (
          <Button size="small" variant="outlined" color="error" onClick={() => setToDisconnect(connection)} disabled={!canSession} data-testid={`connections-disconnect-${id}`}>
            {t('connections.buttons.disconnect')}
          </Button>
        );
    }
  };

  const rows = connections.data ?? [];
  const openAdd = (channel: string) => {
    setAddMenu(null);
    setModal({ connection: null, channel });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="connections-page">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('connections.title')}
        </Typography>
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
          {canSeeInboundFailures && <InboundFailures connections={connections.data ?? []} />}
          {canSession && (
            <Button
              variant="outlined"
              startIcon={<RestartAltIcon />}
              disabled={restart.isPending}
              onClick={() => setConfirmRestart(true)}
              data-testid="connections-restart-all"
            >
              {t('connections.restartAll')}
            </Button>
          )}
          {canAdd && (
            <Button variant="contained" startIcon={<AddIcon />} onClick={(event) => setAddMenu(event.currentTarget)} data-testid="connections-add">
              {t('connections.add')}
            </Button>
          )}
          <Menu anchorEl={addMenu} open={!!addMenu} onClose={() => setAddMenu(null)}>
            <MenuItem onClick={() => openAdd('whatsapp')} data-testid="connections-add-whatsapp">
              <WhatsAppIcon sx={{ mr: 1, color: '#25d366' }} />
              WhatsApp
            </MenuItem>
            <MenuItem disabled data-testid="connections-add-facebook">
              <FacebookIcon sx={{ mr: 1 }} />
              Facebook
            </MenuItem>
            <MenuItem disabled data-testid="connections-add-instagram">
              <InstagramIcon sx={{ mr: 1 }} />
              Instagram
            </MenuItem>
          </Menu>
        </Stack>
      </Stack>

      <ImportProgressCards progress={importProgress} connections={rows} />

      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer sx={{ maxHeight: 'calc(100vh - 200px)' }}>
          <Table stickyHeader size="small" data-testid="connections-table">
            <TableHead>
              <TableRow>
                <TableCell align="center">{t('connections.columns.channel')}</TableCell>
                <TableCell>{t('connections.columns.name')}</TableCell>
                <TableCell sx={WIDE_ONLY}>{t('connections.columns.number')}</TableCell>
                <TableCell align="center">{t('connections.columns.status')}</TableCell>
                <TableCell align="center">{t('connections.columns.session')}</TableCell>
                <TableCell align="center" sx={WIDE_ONLY}>
                  {t('connections.columns.lastUpdate')}
                </TableCell>
                <TableCell align="center" sx={WIDE_ONLY}>
                  {t('connections.columns.default')}
                </TableCell>
                {canEdit && <TableCell align="center">{t('connections.columns.actions')}</TableCell>}
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((connection) => (
                <TableRow key={connection.id} hover data-testid={`connections-row-${connection.id}`} data-status={connection.status}>
                  <TableCell align="center">
                    <ChannelIcon channel={connection.channel} />
                  </TableCell>
                  <TableCell>
                    {connection.name}
                    {connection.provider === 'sandbox' && (
                      // Sandbox connections talk to a simulated phone: told apart from the real ones.
                      <Tooltip title={t('connections.providers.sandbox')}>
                        <Chip size="small" variant="outlined" label={t('connections.sandboxChip')} sx={{ ml: 1 }} data-testid={`connections-sandbox-${connection.id}`} />
                      </Tooltip>
                    )}
                  </TableCell>
                  <TableCell sx={WIDE_ONLY}>{connection.number}</TableCell>
                  <TableCell align="center">
                    <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', justifyContent: 'center', flexWrap: 'wrap' }}>
                      <StatusIcon status={connection.status} />
                      <span data-testid={`connections-status-${connection.id}`}>{t(`connections.status.${connection.status}`)}</span>
                      <DownSince connection={connection} />
                    </Stack>
                    <SessionReasonLine connection={connection} />
                    <GapRowStatus connection={connection} canDismiss={canSession} />
                    <ImportRowStatus connection={connection} />
                  </TableCell>
                  <TableCell align="center">
                    <Stack spacing={1} sx={{ alignItems: 'center' }}>
                      {sessionButtons(connection)}
                      <CloseImportedButton connection={connection} disabled={!canSession} />
                    </Stack>
                  </TableCell>
                  <TableCell align="center" sx={WIDE_ONLY}>
                    {formatTableDate(connection.updatedAt)}
                  </TableCell>
                  <TableCell align="center" sx={WIDE_ONLY}>
                    {connection.isDefault && (
                      <CheckCircleIcon color="success" fontSize="small" aria-label={t('connections.columns.default')} data-testid={`connections-default-${connection.id}`} />
                    )}
                  </TableCell>
                  {canEdit && (
                    <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                      <Tooltip title={t('connections.deliveryHealth.button')}>
                        <IconButton size="small" onClick={() => setHealthFor(connection)} aria-label={t('connections.deliveryHealth.button')} data-testid={`connections-health-${connection.id}`}>
                          <MonitorHeartOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.edit')}>
                        <IconButton size="small" onClick={() => setModal({ connection, channel: connection.channel })} aria-label={t('common.edit')} data-testid={`connections-edit-${connection.id}`}>
                          <EditIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={t('common.delete')}>
                        <IconButton size="small" onClick={() => setToDelete(connection)} aria-label={t('common.delete')} data-testid={`connections-delete-${connection.id}`}>
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </TableCell>
                  )}
                </TableRow>
              ))}
              {connections.isError && (
                <TableRow>
                  <TableCell colSpan={8} align="center" data-testid="connections-error">
                    {translateError(connections.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {connections.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={8} align="center" data-testid="connections-empty">
                    {t('connections.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {connections.isPending && (
            <Box>
              <PageLoader />
            </Box>
          )}
        </TableContainer>
      </Paper>

      {modal && <ConnectionModal connection={modal.connection} channel={modal.channel} onClose={() => setModal(null)} />}
      {qrFor !== null && <QrCodeDialog connectionId={qrFor} onClose={closeQr} />}
      {healthFor && <DeliveryHealthDialog connection={healthFor} onClose={() => setHealthFor(null)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('connections.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="connections-delete-dialog"
      >
        {t('connections.deleteText')}
      </ConfirmDialog>
      <ConfirmDialog
        open={!!toDisconnect}
        title={t('connections.disconnectTitle', { name: toDisconnect?.name ?? '' })}
        onClose={() => setToDisconnect(null)}
        onConfirm={confirmDisconnect}
        confirmLabel={t('connections.buttons.disconnect')}
        busy={session.isPending}
        testId="connections-disconnect-dialog"
      >
        {t('connections.disconnectText')}
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmRestart}
        title={t('connections.restartTitle')}
        onClose={() => setConfirmRestart(false)}
        onConfirm={restartAll}
        confirmLabel={t('connections.restartConfirm')}
        busy={restart.isPending}
        testId="connections-restart-dialog"
      >
        {t('connections.restartText')}
      </ConfirmDialog>
    </Stack>
  );
}
