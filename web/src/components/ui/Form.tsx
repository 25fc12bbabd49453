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
}

export function Form<T extends FieldValues, TOut extends FieldValues = T>({ form, onSubmit, children, id, testId, sx }: FormProps<T, TOut>) {
  return (
    <FormProvider {...form}>
      <Box component="form" id={id} data-testid={testId} noValidate onSubmit={form.handleSubmit(onSubmit)} sx={sx}>
        {children}
      </Box>
    </FormProvider>
  );
}
