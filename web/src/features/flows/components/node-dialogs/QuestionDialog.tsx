/** The question node: the question and where the answer is kept. */
import { useTranslation } from 'react-i18next';
import { FormTextField } from '../../../../components/ui';
import { questionFields, questionFormSchema, rememberAnswerKey } from '../../utils/nodes';
import { FormDialog, type NodeDialogProps } from './shell';

export function QuestionDialog({ data, onSubmit, onClose }: NodeDialogProps<'question'>) {
  const { t } = useTranslation();
  const current = data ? questionFields(data) : { message: '', answerKey: '' };
  return (
    <FormDialog
      schema={questionFormSchema}
      defaults={current}
      onValues={(v) => {
        rememberAnswerKey(v.answerKey.trim(), data ? current.answerKey : null);
        onSubmit({ ...data, typebotIntegration: { message: v.message, answerKey: v.answerKey.trim() } });
      }}
      type="question"
      editing={!!data}
      onClose={onClose}
      title={data ? t('flows.dialog.questionEditTitle') : t('flows.dialog.questionAddTitle')}
    >
      {() => (
        <>
          <FormTextField name="message" label={t('flows.dialog.message')} required multiline minRows={3} fullWidth autoFocus testId="node-question-message" />
          <FormTextField name="answerKey" label={t('flows.dialog.answerKey')} required fullWidth testId="node-question-key" />
        </>
      )}
    </FormDialog>
  );
}
