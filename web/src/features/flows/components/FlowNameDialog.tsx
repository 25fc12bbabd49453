import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Form, FormTextField } from '../../../components/ui';
import { isApiError } from '../../../lib/api';
import { toast } from '../../../lib/toast';
import { isFlowErrorCode, toastFlowError } from '../utils/errors';
import { flowNameSchema, useSaveFlowName, type FlowNameValues } from '../api/flows';
import type { FlowSummary } from '../types';

interface FlowNameDialogProps {
  /** The flow to rename; null to create one. */
  flow: FlowSummary | null;
  onClose: () => void;
  /** Called with the created flow. */
  onCreated?: (flow: FlowSummary) => void;
}

/** 'Adicionar Fluxo' / 'Editar Fluxo': the flow's name (spec 3 §2.12, §5). */
export function FlowNameDialog({ flow, onClose, onCreated }: FlowNameDialogProps) {
  const { t } = useTranslation();
  const save = useSaveFlowName();
  const form = useForm<FlowNameValues>({ resolver: zodResolver(flowNameSchema), defaultValues: { name: flow?.name ?? '' } });

  const onSubmit = (values: FlowNameValues) => {
    save.mutate(
      { flowId: flow?.id ?? null, name: values.name.trim() },
      {
        onSuccess: (saved) => {
          toast.success(t('flows.savedName'));
          if (!flow) onCreated?.(saved);
          onClose();
        },
        onError: (error) => {
          const nameError = isApiError(error) ? error.fields.find((f) => f.field === 'name') : undefined;
          if (nameError) form.setError('name', { type: 'server', message: isFlowErrorCode(nameError.code) ? `flows.errors.${nameError.code}` : nameError.code }, { shouldFocus: true });
          else toastFlowError(error, t);
        },
      },
    );
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs" data-testid="flow-name-dialog">
      <DialogTitle>{flow ? t('flows.nameDialog.editTitle') : t('flows.nameDialog.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="flow-name-form" inDialog>
        <DialogContent dividers>
          <FormTextField name="name" label={t('flows.nameDialog.name')} required fullWidth autoFocus testId="flow-name-input" />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="flow-name-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="flow-name-save">
            {flow ? t('flows.nameDialog.save') : t('flows.nameDialog.add')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
