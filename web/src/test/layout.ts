/**
 * jsdom lays nothing out (every size is 0). These stand-ins give elements a width, and a
 * scrolling pane its heights and a scroll position, for the code that measures them (the ticket
 * header's overflow menu, the input's tools, the conversation pane's scroll rules).
 */

type Restore = () => void;

function override(target: object, property: string, descriptor: PropertyDescriptor): Restore {
  const own = Object.getOwnPropertyDescriptor(target, property);
  Object.defineProperty(target, property, { configurable: true, ...descriptor });
  return () => {
    if (own) Object.defineProperty(target, property, own);
    else delete (target as Record<string, unknown>)[property];
  };
}

/** Every element is `width` px wide (getBoundingClientRect). */
export function stubWidth(width: number): Restore {
  return override(HTMLElement.prototype, 'getBoundingClientRect', {
    value: () => ({ x: 0, y: 0, top: 0, left: 0, right: width, bottom: 0, width, height: 0, toJSON: () => ({}) }),
  });
}

/**
 * The element with the test id `testId` scrolls: `scrollHeight` of content in `clientHeight`,
 * its scrollTop kept (and clamped as a browser does); scrollTo jumps.
 */
export function stubScrollPane(testId: string, scrollHeight: number, clientHeight: number): Restore {
  const tops = new WeakMap<Element, number>();
  const matches = (element: HTMLElement) => element.dataset.testid === testId;
  const restores = [
    override(HTMLElement.prototype, 'scrollHeight', {
      get(this: HTMLElement) {
        return matches(this) ? scrollHeight : 0;
      },
    }),
    override(HTMLElement.prototype, 'clientHeight', {
      get(this: HTMLElement) {
        return matches(this) ? clientHeight : 0;
      },
    }),
    override(HTMLElement.prototype, 'scrollTop', {
      get(this: HTMLElement) {
        return tops.get(this) ?? 0;
      },
      set(this: HTMLElement, value: number) {
        tops.set(this, Math.max(0, Math.min(value, Math.max(0, scrollHeight - clientHeight))));
      },
    }),
    override(HTMLElement.prototype, 'scrollTo', {
      value(this: HTMLElement, options: ScrollToOptions) {
        this.scrollTop = options.top ?? this.scrollTop;
      },
    }),
  ];
  return () => restores.reverse().forEach((restore) => restore());
}
