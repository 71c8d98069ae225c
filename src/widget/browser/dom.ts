/** What `h` and `Ctx.show` take as children: nested arrays are flattened, empty values dropped. */
export type Child = Node | string | number | null | undefined | false | Child[];

type Attr = string | number | boolean | null | undefined;

/**
 * Attributes (`true` is an empty attribute; `null`, `undefined` and `false` leave it out), event
 * handlers (`on<event>`) and `value`, which is set as the property after the children.
 */
export interface Props {
  onclick?: (e: MouseEvent) => void;
  onchange?: (e: Event) => void;
  oninput?: (e: Event) => void;
  onsubmit?: (e: SubmitEvent) => void;
  [name: string]: Attr | ((e: never) => void);
}

/** DOM from data: text always goes in as text nodes, never as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...kids: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  let value: Attr;
  const p: Props = props || {};
  for (const k in p) {
    const v = p[k];
    if (v == null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v as EventListener);
    else if (k === 'value') value = v as Attr;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  e.append(
    ...kids
      .flat(3)
      .filter((c): c is Node | string | number => c != null && c !== false)
      .map((c) => (c instanceof Node ? c : String(c))),
  );
  if (value !== undefined) (e as HTMLInputElement).value = String(value);
  return e;
}

/** `v` as an integer within [min, max], else `dflt`. */
export const int = (v: unknown, min: number, max: number, dflt: number): number => {
  const n = Number(v);
  return Number.isInteger(n) && n >= min && n <= max ? n : dflt;
};
