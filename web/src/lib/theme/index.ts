export { AppThemeProvider } from './AppThemeProvider';
export { useThemeMode, setThemeMode, toggleThemeMode, getThemeMode, hasStoredThemeMode } from './mode';
export type { ThemeMode } from './mode';
export * from './colors';
export { useAppName } from './useAppName';
