/** Maps a server validation error (`fields`) onto react-hook-form fields. */
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { isApiError } from './api';

/** Returns true when at least one field error was applied. */
export function applyServerFieldErrors<T extends FieldValues>(error: unknown, setError: UseFormSetError<T>, known: readonly string[]): boolean {
  if (!isApiError(error) || error.fields.length === 0) return false;
  let applied = false;
  for (const { field, code } of error.fields) {
    if (known.includes(field)) {
      setError(field as Path<T>, { type: 'server', message: code }, { shouldFocus: !applied });
      applied = true;
    }
  }
  return applied;
}
