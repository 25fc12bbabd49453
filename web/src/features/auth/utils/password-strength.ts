/**
 * Password strength (spec 2 §5): one point each for length ≥ 8, an uppercase letter, a lowercase
 * letter, a digit and a symbol (0 to 5). Weak up to 2, medium 3 to 4, strong 5.
 */
export type StrengthLabel = 'weak' | 'medium' | 'strong';

export const WEAK_SCORE_MAX = 2;

export function passwordScore(password: string): number {
  const checks = [
    password.length >= 8,
    /\p{Lu}/u.test(password),
    /\p{Ll}/u.test(password),
    /\p{Nd}/u.test(password),
    // A symbol is anything but a letter or a digit (accented letters are letters).
    /[^\p{L}\p{N}]/u.test(password),
  ];
  return checks.filter(Boolean).length;
}

export function strengthLabel(score: number): StrengthLabel {
  if (score <= WEAK_SCORE_MAX) return 'weak';
  if (score <= 4) return 'medium';
  return 'strong';
}

/** True when the login page should warn before signing in (score 2 or lower). */
export function isWeakPassword(password: string): boolean {
  return passwordScore(password) <= WEAK_SCORE_MAX;
}
