/**
 * The one form wrapper: react-hook-form + zod. Field components read the form from context and
 * translate their error codes.
 */
import type { ReactNode } from 'react';
import { FormProvider, type FieldValues, type SubmitHandler, type UseFormReturn } from 'react-hook-form';
import { Box, type SxProps, type Theme } from '@mui/material';

interface FormProps<T extends FieldValues, TOut extends FieldValues> {
  form: UseFormReturn<T, unknown, TOut>;
  onSubmit: SubmitHandler<TOut>;
  children: ReactNode;
  id?: string;
  testId?: string;
  sx?: SxProps<Theme>;
  /**
   * The form sits in a Dialog, around its DialogContent and DialogActions: it passes the paper's
   * flex layout on, so the content scrolls while the title and the actions stay in view.
   */
  inDialog?: boolean;
}

const IN_DIALOG: SxProps<Theme> = { display: 'flex', flexDirection: 'column', flex: '1 1 auto', minHeight: 0 };

export function Form<T extends FieldValues, TOut extends FieldValues = T>({ form, onSubmit, children, id, testId, sx, inDialog }: FormProps<T, TOut>) {
  return (
    <FormProvider {...form}>
      <Box
        component="form"
        id={id}
        data-testid={testId}
        noValidate
        onSubmit={form.handleSubmit(onSubmit)}
        sx={[inDialog ? IN_DIALOG : {}, ...(Array.isArray(sx) ? sx : [sx])]}
      >
        {children}
      </Box>
    </FormProvider>
  );
}
