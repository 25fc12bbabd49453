/**
 * The browser title: the app name, with the notification badge in front (spec 1 "Layout and top
 * bar": a count up to 20 as a symbol, a larger one as the number in parentheses).
 */

let name = typeof document !== 'undefined' ? document.title : '';
let badge = '';

function apply(): void {
  if (typeof document !== 'undefined') document.title = badge ? `${badge} ${name}` : name;
}

/** 0 → none; 1 to 20 → ① to ⑳; more → "(21)". */
export function titleBadge(count: number): string {
  if (!Number.isFinite(count) || count <= 0) return '';
  const whole = Math.floor(count);
  if (whole <= 20) return String.fromCodePoint(0x2460 + whole - 1);
  return `(${whole})`;
}

/** The app name part of the title. */
export function setTitleName(value: string): void {
  name = value;
  apply();
}

/** The notification count shown in front of the name. */
export function setTitleCount(count: number): void {
  badge = titleBadge(count);
  apply();
}
