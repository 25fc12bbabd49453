/** The frame every node dialog shares: its props, the title and buttons, and the form dialog. */
import { type ReactNode } from 'react';
import { useForm, type DefaultValues, type FieldValues } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod/mini';
import { Form } from '../../../../components/ui';
import type { FlowLimits } from '../../../../lib/wasm/rules';
import type { NodeDataOf, NodeType } from '../../types';

/** The dialog of one node type: it edits that type's data (the core's, generated). */
export interface NodeDialogProps<T extends NodeType> {
  /** The node's data when editing; null when creating. */
  data: NodeDataOf<T> | null;
  /**
   * The new data; for a menu, `handles` maps each earlier option handle (`a{n}`) to its new one,
   * or to null when the option was removed, so the editor can move or drop its connections.
   */
  onSubmit: (data: NodeDataOf<T>, handles?: Record<string, string | null>) => void;
  onClose: () => void;
}

/** A dialog held to the core's flow limits. */
export type LimitedProps<T extends NodeType> = NodeDialogProps<T> & { limits: FlowLimits };

export interface ShellProps {
  type: NodeType;
  editing: boolean;
  onClose: () => void;
  children: ReactNode;
  busy?: boolean;
  title?: string;
  /** Rendered outside a form: the submit button calls this. */
  onConfirm?: () => void;
}

export function DialogShell({ type, editing, onClose, children, busy, title, onConfirm }: ShellProps) {
  const { t } = useTranslation();
  const typeName = t(`flows.types.${type}`);
  return (
    <>
      <DialogTitle>{title ?? (editing ? t('flows.dialog.editTitle', { type: typeName }) : t('flows.dialog.addTitle', { type: typeName }))}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>{children}</Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} data-testid="node-dialog-cancel">
          {t('flows.dialog.cancel')}
        </Button>
        <Button type={onConfirm ? 'button' : 'submit'} onClick={onConfirm} variant="contained" disabled={busy} data-testid="node-dialog-save">
          {editing ? t('flows.dialog.edit') : t('flows.dialog.add')}
        </Button>
      </DialogActions>
    </>
  );
}

/** A dialog around a react-hook-form + zod form. */
export function FormDialog<S extends z.ZodMiniType<FieldValues, FieldValues>>({
  schema,
  defaults,
  onValues,
  type,
  editing,
  onClose,
  title,
  children,
}: {
  schema: S;
  defaults: z.input<S>;
  onValues: (values: z.output<S>) => void;
  type: NodeType;
  editing: boolean;
  onClose: () => void;
  title?: string;
  children: (form: ReturnType<typeof useForm<z.input<S>, unknown, z.output<S>>>) => ReactNode;
}) {
  const form = useForm<z.input<S>, unknown, z.output<S>>({ resolver: zodResolver(schema), defaultValues: defaults as DefaultValues<z.input<S>> });
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid={`node-dialog-${type}`}>
      <Form form={form} onSubmit={onValues} testId="node-dialog-form" inDialog>
        <DialogShell type={type} editing={editing} onClose={onClose} title={title}>
          {children(form)}
        </DialogShell>
      </Form>
    </Dialog>
  );
}
