/** The signup phone mask "(99) 99999-9999"; the wire value is digits only. */
export function phoneDigits(value: string): string {
  return value.replace(/\D/g, '').slice(0, 11);
}

export function maskPhone(value: string): string {
  const digits = phoneDigits(value);
  if (digits.length === 0) return '';
  if (digits.length <= 2) return `(${digits}`;
  if (digits.length <= 7) return `(${digits.slice(0, 2)}) ${digits.slice(2)}`;
  return `(${digits.slice(0, 2)}) ${digits.slice(2, 7)}-${digits.slice(7)}`;
}
