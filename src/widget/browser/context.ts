/** One mounted widget: its element, settings, texts and the few ways it draws itself. */

import type { Child } from './dom';
import { fill, texts, type TextKey, type Vars } from './i18n';

export interface Ctx {
  /** The page's `[data-service-widget]` element. */
  el: Element;
  name: string;
  /** The widget's root element inside its shadow root. */
  box: HTMLDivElement;
  /** The locale of this widget's texts, dates and numbers. */
  locale: string;
  /** The locale the page named, if any: it also goes to the API as `locale=`. */
  asked: string | null;
  tenant: string;
  userId: string | null;
  t(key: TextKey, vars?: Vars): string;
  num(n: number): string;
  /** `data-state` of the widget: what tests and host pages may watch. */
  state(s: string): void;
  show(...nodes: Child[]): void;
  /** Fetches again (read widgets): `ServiceWidgets.reload` and a sent lead call it. */
  reload?: () => Promise<void>;
}

/** A widget: draws itself into `c` and keeps itself up to date. */
export type Widget = (c: Ctx) => void;

export function context(
  el: Element,
  name: string,
  box: HTMLDivElement,
  tenant: string,
  asked: string | null,
  locale: string,
): Ctx {
  const words = texts(locale);
  const numbers = new Intl.NumberFormat(locale);
  return {
    el,
    name,
    box,
    locale,
    asked,
    tenant,
    userId: el.getAttribute('data-user-id'),
    t: (k, vars) => fill(words[k] || '', vars),
    num: (n) => (typeof n === 'number' ? numbers.format(n) : n),
    state: (s) => box.setAttribute('data-state', s),
    show: (...nodes) =>
      box.replaceChildren(
        ...nodes.flat(3).filter((n): n is Node | string => n != null && n !== false),
      ),
  };
}
