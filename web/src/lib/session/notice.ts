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

/**
 * The server stopped accepting the session: the login page says it ended, unless the same user's
 * sign-in elsewhere was already heard (that revokes this session too, so a request made in the
 * moment before the reload fails as well; the more telling reason stays).
 */
export function noteSessionEnded(): void {
  if (readSignOutNotice() !== 'elsewhere') setSignOutNotice('ended');
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
