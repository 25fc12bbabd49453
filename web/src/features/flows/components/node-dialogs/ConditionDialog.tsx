/** The condition node: a variable, one of the core's operators and a value. */
import { useTranslation } from 'react-i18next';
import { FormSelectField, FormTextField } from '../../../../components/ui';
import { conditionFormSchema } from '../../utils/nodes';
import { FormDialog, type LimitedProps } from './shell';

export function ConditionDialog({ data, onSubmit, onClose, limits }: LimitedProps<'condition'>) {
  const { t } = useTranslation();
  // Every operator the core lists has a label in the catalogues (the NodeDialog test checks them).
  const options = limits.conditionOperators.map((op) => ({ value: op, label: t(`flows.dialog.operators.${op}` as 'flows.dialog.operators.==') }));
  return (
    <FormDialog
      schema={conditionFormSchema}
      defaults={{ key: data?.key ?? '', condition: data?.condition || '==', value: data?.value ?? '' }}
      onValues={(v) => onSubmit({ ...data, key: v.key.trim(), condition: v.condition, value: v.value })}
      type="condition"
      editing={!!data}
      onClose={onClose}
    >
      {() => (
        <>
          <FormTextField name="key" label={t('flows.dialog.key')} required fullWidth autoFocus testId="node-condition-key" />
          <FormSelectField name="condition" label={t('flows.dialog.condition')} options={options} fullWidth testId="node-condition-operator" />
          <FormTextField name="value" label={t('flows.dialog.value')} fullWidth testId="node-condition-value" />
        </>
      )}
    </FormDialog>
  );
}
