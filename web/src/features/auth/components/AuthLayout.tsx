import type { ReactNode } from 'react';
import { Box, Container, Paper, Stack, Typography } from '@mui/material';
import { LanguageSwitcher } from '../../../components/LanguageSwitcher';
import { ThemeToggle } from '../../../components/ThemeToggle';
import { useAppName } from '../../../lib/theme';

/** The frame of the public pages: app name, title, theme toggle and language switcher. */
export function AuthLayout({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  const appName = useAppName();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', bgcolor: 'background.default', py: 4 }}>
      <Container maxWidth="xs">
        <Paper sx={{ p: 4 }} elevation={3} data-testid={testId}>
          <Stack direction="row" sx={{ mb: 2, alignItems: 'center', justifyContent: 'space-between' }}>
            <Typography variant="h5" color="primary" sx={{ fontWeight: 700 }} data-testid="app-name">
              {appName}
            </Typography>
            <Stack direction="row">
              <ThemeToggle color="default" />
              <LanguageSwitcher color="default" />
            </Stack>
          </Stack>
          <Typography component="h1" variant="h6" sx={{ mb: 2 }}>
            {title}
          </Typography>
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
