/**
 * A tenant's `link_templates` (docs/embedding.md §4): the rules a template must follow to be saved,
 * and the filling of its `{id}` with a link's target id. Tenants validate templates on write;
 * deeplinks fill them when a short link is followed.
 */

/** Whether the text has a C0 control character or DEL. */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The placeholder of a tenant's `link_templates` entry, replaced by the link's target id. */
export const TEMPLATE_PLACEHOLDER = '{id}';

/**
 * A link template cut into the parts a browser will read: `scheme://authority` and the path, query
 * and fragment after it. Templates are written with `scheme://` and without backslashes, spaces or
 * control characters, so this split and the WHATWG URL parser agree on where the authority ends.
 */
function templateParts(
  template: string,
): { origin: string; path: string; query: string; fragment: string } | undefined {
  if (/[\\\s]/.test(template) || hasControlCharacter(template)) return undefined;
  const match = /^(https?:\/\/[^/?#]+)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(template);
  if (!match) return undefined;
  const [, origin, path, query = '', fragment = ''] = match;
  return { origin, path, query, fragment };
}

/**
 * Why a link template may not be saved, or undefined. `{id}` must appear, and only in the path,
 * the query or the fragment: in the scheme, user info, host or port a partner's target id could
 * steer the short link to another site (`https://shop.example{id}` with the id `.evil.example`).
 */
export function linkTemplateError(template: string): string | undefined {
  if (!template.includes(TEMPLATE_PLACEHOLDER)) return 'must contain {id}';
  const parts = templateParts(template);
  if (!parts) {
    return 'must be an absolute http(s) URL written as scheme://host/…, without spaces or backslashes';
  }
  if (parts.origin.includes(TEMPLATE_PLACEHOLDER)) {
    return 'may have {id} only in the path, query or fragment, never in the host or port';
  }
  if (parts.origin.includes('@')) return 'must not have user info (user@host)';
  if (/[{}]/.test(parts.origin)) return 'must be an absolute URL';
  try {
    const url = new URL(template.replaceAll(TEMPLATE_PLACEHOLDER, 'x'));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
    if (!url.hostname) return 'must name a host';
  } catch {
    return 'must be an absolute URL';
  }
  return undefined;
}

/**
 * The template with `{id}` filled, the id encoded for the part it lands in: as a path segment, a
 * query key or value, or the fragment (encodeURIComponent, so `/`, `?`, `#`, `&`, `=` and `:` in
 * an id stay data). Undefined for a template `linkTemplateError` refuses (one saved before the
 * rule), whose link then gets the landing page rather than a redirect the id could steer.
 */
export function fillLinkTemplate(template: string, id: string): string | undefined {
  if (linkTemplateError(template) !== undefined) return undefined;
  const parts = templateParts(template)!;
  const value = encodeURIComponent(id);
  const fill = (part: string) => part.replaceAll(TEMPLATE_PLACEHOLDER, value);
  const filled = parts.origin + fill(parts.path) + fill(parts.query) + fill(parts.fragment);
  // The filled URL keeps the template's origin: the id can only ever change what comes after it.
  const origin = new URL(template.replaceAll(TEMPLATE_PLACEHOLDER, 'x')).origin;
  return new URL(filled).origin === origin ? filled : undefined;
}
