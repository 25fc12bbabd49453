import { useState } from 'react';
import { Box, Button, Chip, IconButton, Paper, Stack, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, Tooltip, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditIcon from '@mui/icons-material/Edit';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog, PageLoader } from '../../../components/ui';
import { translateError } from '../../../lib/i18n/errors';
import { useCan } from '../../../lib/session';
import { toast } from '../../../lib/toast';
import { toastFlowError } from '../utils/errors';
import { useDeleteFlowCampaign, useFlowCampaigns } from '../api/phrase-lists';
import { useFlowCampaignsRealtime } from '../hooks/useFlowsRealtime';
import type { FlowCampaign } from '../types';
import { PhraseCampaignDialog } from './PhraseCampaignDialog';

/** Flow campaigns by phrase (spec 3 §2.14, route /phrase-lists). */
export default function PhraseListsPage() {
  const { t } = useTranslation();
  const campaigns = useFlowCampaigns();
  const remove = useDeleteFlowCampaign();
  const canDelete = useCan('contacts-page:deleteContact');
  const [dialog, setDialog] = useState<{ campaign: FlowCampaign | null } | null>(null);
  const [toDelete, setToDelete] = useState<FlowCampaign | null>(null);
  useFlowCampaignsRealtime();
  const rows = campaigns.data ?? [];

  const confirmDelete = () => {
    if (!toDelete) return;
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success(t('phraseLists.deleted')),
      onError: (error) => toastFlowError(error, t),
      onSettled: () => setToDelete(null),
    });
  };

  return (
    <Stack spacing={2} sx={{ height: '100%', minHeight: 0 }} data-testid="phrase-lists-page">
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="h5" component="h1">
          {t('phraseLists.title')}
        </Typography>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ campaign: null })} data-testid="phrase-lists-add">
          {t('phraseLists.add')}
        </Button>
      </Stack>
      <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <TableContainer sx={{ maxHeight: 'calc(100vh - 200px)' }}>
          <Table stickyHeader size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('phraseLists.name')}</TableCell>
                <TableCell align="center">{t('phraseLists.status')}</TableCell>
                <TableCell align="center">{t('phraseLists.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map((campaign) => (
                <TableRow key={campaign.id} hover data-testid={`phrase-lists-row-${campaign.id}`}>
                  <TableCell>{campaign.name}</TableCell>
                  <TableCell align="center">
                    <Chip size="small" color={campaign.status ? 'success' : 'default'} label={campaign.status ? t('phraseLists.active') : t('phraseLists.inactive')} />
                  </TableCell>
                  <TableCell align="center" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('common.edit')}>
                      <IconButton size="small" onClick={() => setDialog({ campaign })} aria-label={t('common.edit')} data-testid={`phrase-lists-edit-${campaign.id}`}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    {canDelete && (
                      <Tooltip title={t('common.delete')}>
                        <IconButton size="small" onClick={() => setToDelete(campaign)} aria-label={t('common.delete')} data-testid={`phrase-lists-delete-${campaign.id}`}>
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                  </TableCell>
                </TableRow>
              ))}
              {campaigns.isError && (
                <TableRow>
                  <TableCell colSpan={3} align="center" data-testid="phrase-lists-error">
                    {translateError(campaigns.error, t)}
                  </TableCell>
                </TableRow>
              )}
              {campaigns.isSuccess && rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={3} align="center" data-testid="phrase-lists-empty">
                    {t('phraseLists.empty')}
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
          {campaigns.isPending && (
            <Box>
              <PageLoader />
            </Box>
          )}
        </TableContainer>
      </Paper>
      {dialog && <PhraseCampaignDialog campaign={dialog.campaign} onClose={() => setDialog(null)} />}
      <ConfirmDialog
        open={!!toDelete}
        title={t('phraseLists.deleteTitle', { name: toDelete?.name ?? '' })}
        onClose={() => setToDelete(null)}
        onConfirm={confirmDelete}
        confirmLabel={t('common.delete')}
        busy={remove.isPending}
        testId="phrase-lists-delete-dialog"
      >
        {t('phraseLists.deleteText')}
      </ConfirmDialog>
    </Stack>
  );
}
