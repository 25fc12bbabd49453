/**
 * MUI theme from the light/dark choice and the whitelabel public settings. Also mirrors the mode
 * on <html data-theme> and the app name on the document title.
 */
import { useEffect, useMemo, type ReactNode } from 'react';
import { CssBaseline, ThemeProvider, createTheme } from '@mui/material';
import { usePublicSetting } from '../public-settings';
import { setTitleName } from '../title';
import { appNameOf, primaryColor } from './colors';
import { useThemeMode } from './mode';

export function AppThemeProvider({ children }: { children: ReactNode }) {
  const mode = useThemeMode();
  const light = usePublicSetting('primaryColorLight');
  const dark = usePublicSetting('primaryColorDark');
  const appName = appNameOf(usePublicSetting('appName'));

  const theme = useMemo(
    () =>
      createTheme({
        palette: {
          mode,
          primary: { main: primaryColor(mode, mode === 'light' ? light : dark) },
          ...(mode === 'light' ? { background: { default: '#f5f6fa' } } : {}),
        },
        shape: { borderRadius: 8 },
      }),
    [mode, light, dark],
  );

  useEffect(() => {
    document.documentElement.dataset.theme = mode;
    document.documentElement.style.colorScheme = mode;
  }, [mode]);

  useEffect(() => {
    setTitleName(appName);
  }, [appName]);

  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {children}
    </ThemeProvider>
  );
}
