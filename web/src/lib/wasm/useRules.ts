/**
 * The core's rules for a component: `null` until the WASM module is in (it starts loading after
 * the first render, never before it), then the rules. Callers show nothing that needs an answer
 * until then (the password meter), or a conservative default (the inbox's controls).
 */
import { useEffect, useSyncExternalStore } from 'react';
import { currentRules, loadRules, onRulesReady, type Rules } from './rules';

export function useRules(): Rules | null {
  const rules = useSyncExternalStore(onRulesReady, currentRules, currentRules);
  useEffect(() => {
    if (!rules) loadRules().catch((error: unknown) => console.error('the rules module did not load', error));
  }, [rules]);
  return rules;
}
