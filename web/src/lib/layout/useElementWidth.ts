import { useLayoutEffect, useState } from 'react';

/**
 * The width in px (border box) of the element given the returned callback ref, kept current with a
 * ResizeObserver; `null` until it has been measured, and where nothing is laid out (jsdom, where
 * every width is 0). A callback ref, so an element that mounts later (after a loading state) is
 * measured too; measured before the first paint, so a layout chosen from it does not flash.
 */
export function useElementWidth<T extends HTMLElement = HTMLDivElement>(): [(element: T | null) => void, number | null] {
  const [element, setElement] = useState<T | null>(null);
  const [width, setWidth] = useState<number | null>(null);
  useLayoutEffect(() => {
    if (!element) return;
    const measure = () => {
      const value = Math.round(element.getBoundingClientRect().width);
      setWidth(value > 0 ? value : null);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return [setElement, width];
}
