/**
 * A form's field rules from the core (`chatflow_core::validation::check_form`, through WASM): a zod
 * schema keeps the form's shape and its client-only checks, and asks the core for every field the
 * server validates, so the browser and the server refuse the same values with the same codes.
 * The check is asynchronous (it waits for the rules module the first time): react-hook-form's zod
 * resolver parses asynchronously.
 */
import { z } from 'zod/mini';
import { loadRules, type FieldCode, type FormValues } from './rules';

/** The message of a field's code, where a form words it its own way (default: the code). */
export type CodeMessages = Partial<Record<string, Partial<Record<FieldCode, string>>>>;

/** `schema` refined by the core's verdict on `toCore(values)`; issues land on the core's field names. */
export function checkedByCore<S extends z.ZodMiniObject>(schema: S, toCore: (values: z.output<S>) => FormValues, messages: CodeMessages = {}): S {
  return schema.check(
    z.superRefine(async (values, ctx) => {
      const rules = await loadRules();
      for (const { field, code } of rules.checkForm(toCore(values))) {
        ctx.addIssue({ code: 'custom', path: [field], message: messages[field]?.[code] ?? code });
      }
    }),
  );
}
