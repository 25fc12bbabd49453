/** Reads (never verifies) the claims of a JWT, to learn our own session id. */
export function jwtClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) return {};
  try {
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
    const json = decodeURIComponent(
      Array.from(atob(padded), (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
    );
    const claims: unknown = JSON.parse(json);
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The session id: the response's `sessionId`, else the token's `sid` / `sessionId` claim. */
export function sessionIdOf(explicit: string | null | undefined, token: string | null): string | null {
  if (explicit) return explicit;
  if (!token) return null;
  const claims = jwtClaims(token);
  for (const key of ['sid', 'sessionId', 'session_id']) {
    const value = claims[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return null;
}
