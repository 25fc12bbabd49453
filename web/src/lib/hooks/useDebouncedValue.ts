import { useEffect, useState } from 'react';

/** The value, once it has stayed the same for `delay` ms (spec 1 §9: 500 ms for searches). */
export function useDebouncedValue<T>(value: T, delay = 500): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}
