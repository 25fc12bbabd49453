/**
 * Browser versus server: the web app's rule functions (this module, through the real WASM build)
 * give the native core's answers on the inputs `cargo test -p chatflow-wasm` generated
 * (`web/wasm/tests/rules_cases.rs` writes them with the answers to src/wasm-pkg/rules-cases.json;
 * `cargo xtask test` runs it before the web tests). The inputs are in the shapes the web app holds
 * them: the session's user as `/auth/me` sends it, a list's parameters, a ticket as the API sends it.
 */
/// <reference types="node" />
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userSchema } from '../session';
import { currentRules, loadRules, type FieldError, type FormValues, type InboxControls, type ListFacts, type TicketFacts } from './rules';

interface Cases {
  passwords: { password: string; score: number; label: string; warn: boolean }[];
  emails: { email: string; valid: boolean }[];
  forms: { values: FormValues; fields: FieldError[] }[];
  memberships: { user: unknown; params: ListFacts; ticket: TicketFacts; belongs: boolean }[];
  controls: { user: unknown; controls: InboxControls }[];
  flowLimits: unknown;
  scheduleLimits: unknown;
}

const file = resolve(process.cwd(), 'src/wasm-pkg/rules-cases.json');

describe('the rules the web app asks give the server core’s answers', () => {
  it('has the generated cases', () => {
    expect(existsSync(file), 'run `cargo test -p chatflow-wasm` (cargo xtask test does) to write them').toBe(true);
  });
  const cases = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Cases) : null;
  const rules = currentRules();
  if (!cases || !rules) return;

  it(`password strength (${cases.passwords.length} passwords: unicode, spaces, digits of other scripts)`, () => {
    const got = cases.passwords.map(({ password }) => ({ password, ...rules.passwordStrength(password) }));
    expect(got).toEqual(cases.passwords);
  });

  it(`e-mail validity (${cases.emails.length} addresses)`, () => {
    expect(cases.emails.map(({ email }) => ({ email, valid: rules.isValidEmail(email) }))).toEqual(cases.emails);
  });

  it(`form validation (${cases.forms.length} forms of every kind)`, () => {
    expect(cases.forms.map(({ values }) => ({ values, fields: rules.checkForm(values) }))).toEqual(cases.forms);
  });

  it(`list membership of a ticket (${cases.memberships.length} users, lists and tickets)`, () => {
    const got = cases.memberships.map((c) => ({ ...c, belongs: rules.belongsToList(userSchema.parse(c.user), c.params, c.ticket) }));
    const belonging = got.filter((c) => c.belongs).length;
    expect(belonging).toBeGreaterThan(0);
    expect(got).toEqual(cases.memberships);
  });

  it(`inbox controls (${cases.controls.length} users)`, () => {
    expect(cases.controls.map((c) => ({ ...c, controls: rules.inboxControls(userSchema.parse(c.user)) }))).toEqual(cases.controls);
  });

  it('flow limits', () => {
    expect(rules.flowLimits()).toEqual(cases.flowLimits);
  });

  it('schedule limits', () => {
    expect(rules.scheduleLimits()).toEqual(cases.scheduleLimits);
  });

  it('loadRules answers at once once loaded', async () => {
    await expect(loadRules()).resolves.toBe(rules);
  });
});
