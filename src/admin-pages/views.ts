import type { Response } from 'express';
import { escapeHtml, sendPage } from '../common/http/html';

export const e = escapeHtml;

/** The CSRF field every admin form carries (SPEC 8). */
export const csrfField = (csrf: string) => `<input type="hidden" name="_csrf" value="${e(csrf)}">`;

/** A one-button POST form (no JavaScript needed). */
export function postButton(
  action: string,
  csrf: string,
  label: string,
  extra = '',
  disabled = false,
): string {
  return `<form method="post" action="${e(action)}">${csrfField(csrf)}${extra}<button type="submit"${
    disabled ? ' disabled' : ''
  }>${e(label)}</button></form>`;
}

export interface LayoutOptions {
  slug: string;
  csrf: string;
  title: string;
  who: string;
  notice?: string;
  error?: string;
  status?: number;
  /** Enhances copy buttons when JavaScript is on; pages work without it. */
  copyScript?: boolean;
}

export function adminPage(res: Response, options: LayoutOptions, body: string): void {
  const slug = e(options.slug);
  sendPage(res, {
    status: options.status,
    title: `${options.title} — ${options.slug}`,
    wide: true,
    body: `<nav><strong>${slug}</strong>
<a href="/org/${slug}/integration">Integration</a>
<a href="/org/${slug}/bonuses">Bonuses</a>
<a href="/org/${slug}/audit-log">Audit log</a>
<span class="muted">${e(options.who)}</span>
<form method="post" action="/org/sign-out">${csrfField(options.csrf)}<button type="submit">Sign out</button></form></nav>
<h1>${e(options.title)}</h1>
${options.notice ? `<p class="notice" role="status">${e(options.notice)}</p>` : ''}
${options.error ? `<p class="error" role="alert">${e(options.error)}</p>` : ''}
${body}`,
    script: options.copyScript
      ? `document.querySelectorAll('[data-copy]').forEach(function (b) {
  b.hidden = false;
  b.addEventListener('click', function () {
    navigator.clipboard.writeText(document.getElementById(b.getAttribute('data-copy')).textContent);
    b.textContent = 'Copied';
  });
});`
      : undefined,
  });
}

/** A secret shown once, with a copy button that appears when JavaScript is on. */
export function shownOnce(id: string, label: string, value: string): string {
  return `<p><strong>${e(label)}</strong> (shown once; store it now):</p>
<p class="secret" id="${e(id)}">${e(value)}</p><button type="button" data-copy="${e(id)}" hidden>Copy</button>`;
}

export function table(headers: string[], rows: string[][], rowClasses: string[] = []): string {
  if (!rows.length) return '<p class="muted">Nothing here yet.</p>';
  return `<div class="table"><table><thead><tr>${headers.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map(
      (r, i) =>
        `<tr${rowClasses[i] ? ` class="${e(rowClasses[i])}"` : ''}>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`,
    )
    .join('')}</tbody></table></div>`;
}

export function pager(
  base: string,
  params: Record<string, string | undefined>,
  page: number,
  totalPages: number,
): string {
  const link = (p: number, label: string) => {
    const query = new URLSearchParams(
      Object.entries({ ...params, page: String(p) }).filter(
        (kv): kv is [string, string] => !!kv[1],
      ),
    );
    return `<a href="${e(`${base}?${query.toString()}`)}">${e(label)}</a>`;
  };
  return `<p class="muted">Page ${page} of ${Math.max(totalPages, 1)} ${page > 1 ? link(page - 1, '← Previous') : ''} ${
    page < totalPages ? link(page + 1, 'Next →') : ''
  }</p>`;
}
