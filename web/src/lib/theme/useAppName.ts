import { usePublicSetting } from '../public-settings';
import { appNameOf } from './colors';

/** The whitelabel app name (default 'Chatflow'). */
export function useAppName(): string {
  return appNameOf(usePublicSetting('appName'));
}
