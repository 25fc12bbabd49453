import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, Tab, Tabs } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { AvatarUploadField } from '../../../components/AvatarUploadField';
import { Form, FormSelectField, FormSwitchField, FormTextField } from '../../../components/ui';
import { applyServerFieldErrors } from '../../../lib/forms';
import { useCan } from '../../../lib/session';
import { toast, toastError } from '../../../lib/toast';
import { useUser } from '../api/get-user';
import { usersKeys } from '../api/get-users';
import { useQueues } from '../../../lib/lookups/queues';
import {
  USER_FORM_FIELDS,
  emptyUserForm,
  userBody,
  userFormSchema,
  useSaveUser,
  type UserFormValues,
} from '../api/save-user';
import { queueIdsOf, userRecordSchema, type UserRecord } from '../types';

interface UserModalProps {
  open: boolean;
  /** The user to edit; null to create one. */
  user: UserRecord | null;
  onClose: () => void;
}

const TOGGLES = ['enabled', 'disabled'] as const;

function formValuesOf(user: UserRecord): UserFormValues {
  return {
    name: user.name,
    email: user.email,
    password: '',
    profile: user.profile,
    queueIds: queueIdsOf(user),
    startWork: user.startWork || emptyUserForm.startWork,
    endWork: user.endWork || emptyUserForm.endWork,
    farewellMessage: user.farewellMessage ?? '',
    allTicket: user.allTicket,
    allowGroup: user.allowGroup,
    allHistoric: user.allHistoric,
    allUserChat: user.allUserChat,
    userClosePendingTicket: user.userClosePendingTicket,
    showDashboard: user.showDashboard,
    allowRealTime: user.allowRealTime,
    allowConnections: user.allowConnections,
    defaultTheme: user.defaultTheme,
    defaultMenu: user.defaultMenu,
  };
}

/** Create or edit a user: tabs General and Permissions (spec 1 "Dialogs", §5, §6). */
export function UserModal({ open, user, onClose }: UserModalProps) {
  const { t } = useTranslation();
  const canEditProfile = useCan('user-modal:editProfile');
  const [tab, setTab] = useState<'general' | 'permissions'>('general');
  const detail = useUser(open && user ? user.id : null);
  const current = detail.data ?? user;
  const queues = useQueues(open && canEditProfile);
  const save = useSaveUser();
  const mode = user ? 'edit' : 'create';
  const queryClient = useQueryClient();

  const onAvatarUploaded = (updated: unknown) => {
    const record = userRecordSchema.safeParse(updated);
    if (record.success) queryClient.setQueryData(usersKeys.detail(record.data.id), record.data);
    void queryClient.invalidateQueries({ queryKey: usersKeys.lists() });
  };

  const form = useForm<UserFormValues>({
    resolver: zodResolver(userFormSchema(mode)),
    values: current ? formValuesOf(current) : emptyUserForm,
    resetOptions: { keepDirtyValues: true },
  });

  const onSubmit = (values: UserFormValues) => {
    save.mutate(
      { id: user?.id ?? null, body: userBody(values, { canEditProfile, whatsappId: current?.whatsappId }) },
      {
        onSuccess: () => {
          toast.success(t('users.saved'));
          onClose();
        },
        onError: (error) => {
          const applied = applyServerFieldErrors(error, form.setError, USER_FORM_FIELDS);
          if (applied) setTab('general');
          toastError(error);
        },
      },
    );
  };

  const queueOptions = (queues.data ?? []).map((queue) => ({ value: queue.id, label: queue.name }));
  const toggleSwitch = (name: keyof UserFormValues, label: string) => (
    <FormSwitchField name={name} label={label} values={TOGGLES} testId={`user-modal-${name}`} />
  );

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" scroll="paper" data-testid="user-modal">
      <DialogTitle>{user ? t('userModal.editTitle') : t('userModal.addTitle')}</DialogTitle>
      <Form form={form} onSubmit={onSubmit} testId="user-form" inDialog>
        {canEditProfile && (
          <Tabs value={tab} onChange={(_, value: 'general' | 'permissions') => setTab(value)} sx={{ px: 3 }}>
            <Tab value="general" label={t('userModal.tabs.general')} data-testid="user-modal-tab-general" />
            <Tab value="permissions" label={t('userModal.tabs.permissions')} data-testid="user-modal-tab-permissions" />
          </Tabs>
        )}
        <DialogContent dividers>
          <Box hidden={tab !== 'general'}>
            <Stack spacing={2}>
              {current && <AvatarUploadField user={current} onUploaded={onAvatarUploaded} testId="user-modal-avatar" />}
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                <FormTextField name="name" label={t('userModal.name')} required fullWidth autoFocus testId="user-modal-name" />
                <FormTextField name="email" label={t('userModal.email')} type="email" required fullWidth testId="user-modal-email" />
              </Stack>
              {/* Name and e-mail side by side; the password's hint may wrap without pushing either down. */}
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                <FormTextField
                  name="password"
                  label={t('userModal.password')}
                  required={mode === 'create'}
                  helperText={mode === 'edit' ? t('userModal.passwordEditHint') : undefined}
                  fullWidth
                  revealable
                  autoComplete="new-password"
                  testId="user-modal-password"
                />
                {canEditProfile && (
                  <FormSelectField
                    name="profile"
                    label={t('userModal.profile')}
                    fullWidth
                    testId="user-modal-profile"
                    options={[
                      { value: 'admin', label: t('users.profiles.admin') },
                      { value: 'user', label: t('users.profiles.user') },
                    ]}
                  />
                )}
              </Stack>
              {canEditProfile && (
                <FormSelectField
                  name="queueIds"
                  label={t('userModal.queues')}
                  multiple
                  fullWidth
                  options={queueOptions}
                  disabled={queueOptions.length === 0}
                  helperText={queues.isSuccess && queueOptions.length === 0 ? t('userModal.noQueues') : undefined}
                  testId="user-modal-queues"
                />
              )}
              {canEditProfile && (
                <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                  <FormTextField
                    name="startWork"
                    label={t('userModal.startWork')}
                    type="time"
                    fullWidth
                    slotProps={{ inputLabel: { shrink: true } }}
                    testId="user-modal-startWork"
                  />
                  <FormTextField
                    name="endWork"
                    label={t('userModal.endWork')}
                    type="time"
                    fullWidth
                    slotProps={{ inputLabel: { shrink: true } }}
                    testId="user-modal-endWork"
                  />
                </Stack>
              )}
              <FormTextField name="farewellMessage" label={t('userModal.farewellMessage')} multiline minRows={2} fullWidth testId="user-modal-farewellMessage" />
            </Stack>
          </Box>
          {canEditProfile && (
            <Box hidden={tab !== 'permissions'}>
              <Stack spacing={2}>
                <FormSelectField
                  name="allTicket"
                  label={t('userModal.allTicket')}
                  fullWidth
                  testId="user-modal-allTicket"
                  options={[
                    { value: 'enable', label: t('userModal.allTicketEnable') },
                    { value: 'disable', label: t('userModal.allTicketDisable') },
                  ]}
                />
                <FormSwitchField name="allowGroup" label={t('userModal.allowGroup')} testId="user-modal-allowGroup" />
                {toggleSwitch('allHistoric', t('userModal.allHistoric'))}
                {toggleSwitch('allUserChat', t('userModal.allUserChat'))}
                {toggleSwitch('userClosePendingTicket', t('userModal.userClosePendingTicket'))}
                {toggleSwitch('showDashboard', t('userModal.showDashboard'))}
                {toggleSwitch('allowRealTime', t('userModal.allowRealTime'))}
                {toggleSwitch('allowConnections', t('userModal.allowConnections'))}
                <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                  <FormSelectField
                    name="defaultTheme"
                    label={t('userModal.defaultTheme')}
                    fullWidth
                    testId="user-modal-defaultTheme"
                    options={[
                      { value: 'light', label: t('theme.light') },
                      { value: 'dark', label: t('theme.dark') },
                    ]}
                  />
                  <FormSelectField
                    name="defaultMenu"
                    label={t('userModal.defaultMenu')}
                    fullWidth
                    testId="user-modal-defaultMenu"
                    options={[
                      { value: 'open', label: t('userModal.menuOpen') },
                      { value: 'closed', label: t('userModal.menuClosed') },
                    ]}
                  />
                </Stack>
              </Stack>
            </Box>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} data-testid="user-modal-cancel">
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="user-modal-save">
            {user ? t('common.save') : t('common.add')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
