/** A tiny typed event bus between the API client and the session. */
type Listener<T> = (payload: T) => void;

export function createEmitter<T>() {
  const listeners = new Set<Listener<T>>();
  return {
    on(listener: Listener<T>): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(payload: T): void {
      for (const listener of [...listeners]) listener(payload);
    },
  };
}
