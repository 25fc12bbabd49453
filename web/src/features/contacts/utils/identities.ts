/**
 * A contact's identities as WhatsApp knows them (docs/channels.md "One person, one contact"): a
 * phone number (digits; masked with `*` for plain users under LGPD) or a LID (`…@lid`, a
 * privacy-preserving id WhatsApp gives some people instead of their number).
 */
export type Identity = { kind: 'lid'; id: string } | { kind: 'phone'; number: string };

const LID_SUFFIX = '@lid';

/** What kind of identity `alias` is, with the part to show. */
export function identityOf(alias: string): Identity {
  const value = alias.trim();
  if (value.toLowerCase().endsWith(LID_SUFFIX)) {
    return { kind: 'lid', id: value.slice(0, -LID_SUFFIX.length) };
  }
  return { kind: 'phone', number: formatPhoneNumber(value) };
}

/**
 * A number in international form for reading: Brazilian numbers (55, area code, 8 or 9 digits)
 * as `+55 11 98765-4321`, other numbers as `+` and their digits. Masked digits (`*`) count as
 * digits; anything that is not a number is shown as it is.
 */
export function formatPhoneNumber(value: string): string {
  const digits = value.replace(/[\s()+.-]/g, '');
  if (!/^[\d*]+$/.test(digits)) return value;
  const brazil = /^55([\d*]{2})([\d*]{4,5})([\d*]{4})$/.exec(digits);
  if (brazil) return `+55 ${brazil[1]} ${brazil[2]}-${brazil[3]}`;
  return `+${digits}`;
}
