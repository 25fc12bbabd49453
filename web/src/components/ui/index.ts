export { Form } from './Form';
export { FormTextField } from './FormTextField';
export { FormSelectField } from './FormSelectField';
export type { SelectOption } from './FormSelectField';
export { FormSwitchField } from './FormSwitchField';
export { ConfirmDialog } from './ConfirmDialog';
export { Toaster } from './Toaster';
export { PageLoader } from './PageLoader';
