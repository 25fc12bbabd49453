/** Display formats (spec 1 §9). */
import { LOCALE_TAGS, currentLanguage } from './i18n';

/** "YYYY-MM-DD" (or an ISO date-time) as dd/MM/yyyy, without time-zone shifts for plain dates. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '';
  const plain = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (plain) return `${plain[3]}/${plain[2]}/${plain[1]}`;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const dd = String(date.getDate()).padStart(2, '0');
  const mm = String(date.getMonth() + 1).padStart(2, '0');
  return `${dd}/${mm}/${date.getFullYear()}`;
}

/** Amounts are in Brazilian reais. */
export function formatBRL(amount: number | null | undefined): string {
  return new Intl.NumberFormat(LOCALE_TAGS[currentLanguage()], { style: 'currency', currency: 'BRL' }).format(amount ?? 0);
}
