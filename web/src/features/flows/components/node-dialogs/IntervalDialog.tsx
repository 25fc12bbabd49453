/** The interval node: a pause, held to the core's longest interval. */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { FormTextField } from '../../../../components/ui';
import { intervalFormSchema, intervalLabel } from '../../utils/nodes';
import { FormDialog, type LimitedProps } from './shell';

export function IntervalDialog({ data, onSubmit, onClose, limits }: LimitedProps<'interval'>) {
  const { t } = useTranslation();
  const sec = data?.sec ?? '';
  const schema = useMemo(() => intervalFormSchema(limits), [limits]);
  return (
    <FormDialog
      schema={schema}
      defaults={{ sec }}
      onValues={(v) => onSubmit({ ...data, sec: v.sec, label: intervalLabel(v.sec) })}
      type="interval"
      editing={!!data}
      onClose={onClose}
    >
      {() => <FormTextField name="sec" type="number" label={t('flows.dialog.seconds')} fullWidth autoFocus testId="node-interval-sec" />}
    </FormDialog>
  );
}
