/**
 * Why the last session ended, kept across the reload that follows so the login page can say it
 * (sessionStorage, this tab only): `elsewhere` when the same user signed in on another device or
 * browser, `ended` when the server no longer accepted the session.
 */
export type SignOutNotice = 'elsewhere' | 'ended';

const KEY = 'signOutNotice';

export function setSignOutNotice(notice: SignOutNotice): void {
  try {
    sessionStorage.setItem(KEY, notice);
  } catch {
    // storage unavailable: the login page says nothing
  }
}

export function readSignOutNotice(): SignOutNotice | null {
  try {
    const value = sessionStorage.getItem(KEY);
    return value === 'elsewhere' || value === 'ended' ? value : null;
  } catch {
    return null;
  }
}

export function clearSignOutNotice(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // storage unavailable
  }
}
