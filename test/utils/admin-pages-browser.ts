import type { APIResponse, BrowserContext, Locator, Page } from 'playwright-core';

/**
 * Helpers for driving the organisation admin pages (README.md) in a real browser: every action is a
 * plain form POST followed by a redirect or a rendered page, so a click is followed by waiting for
 * the next document of the main frame (works with JavaScript disabled too).
 */

/** Clicks `target` (a submit button or a link) and waits for the document it leads to. */
export async function clickAndWait(page: Page, target: Locator): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', {
    predicate: (frame) => frame === page.mainFrame(),
    timeout: 15_000,
  });
  await target.click();
  await navigated;
  await page.waitForLoadState('load');
}

/**
 * Presses `key` in `field`; if that submits the form, waits for the next document (else returns
 * after a short grace period).
 */
export async function pressAndWait(page: Page, field: Locator, key: string): Promise<void> {
  const navigated = page
    .waitForEvent('framenavigated', {
      predicate: (frame) => frame === page.mainFrame(),
      timeout: 3_000,
    })
    .then(
      () => true,
      () => false,
    );
  await field.press(key);
  if (await navigated) await page.waitForLoadState('load');
}

/** Signs in at /org/sign-in by typing `token` into the form, as a person would. */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/org/sign-in`);
  const form = page.locator('form[data-form="sign-in"]');
  await form.locator('input[name="token"]').fill(token);
  await clickAndWait(page, form.locator('[data-action="submit"]'));
}

/** The session's CSRF token as the page carries it in its forms' hidden `_csrf` fields. */
export async function csrfOf(page: Page): Promise<string> {
  const value = await page
    .locator('input[type="hidden"][name="_csrf"]')
    .first()
    .getAttribute('value');
  if (!value) throw new Error(`no _csrf field on ${page.url()}`);
  return value;
}

/**
 * A form POST with the context's cookies, as a hand-made form or a script would send it; redirects
 * are not followed, so the status is the route's own answer.
 */
export function postForm(
  context: BrowserContext,
  url: string,
  fields: [string, string][],
): Promise<APIResponse> {
  return context.request.post(url, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    data: new URLSearchParams(fields).toString(),
    maxRedirects: 0,
  });
}

/** The text of each cell of each body row of the first table inside `scope`, ASCII whitespace collapsed
 * (the no-break spaces of formatted money are kept). */
export async function tableRows(scope: Locator): Promise<string[][]> {
  const rows = scope.locator('table').first().locator('tbody tr');
  const result: string[][] = [];
  for (let i = 0, n = await rows.count(); i < n; i++) {
    const cells = await rows.nth(i).locator('td').allTextContents();
    result.push(cells.map((cell) => cell.replace(/[ \t\r\n]+/g, ' ').trim()));
  }
  return result;
}

/** The document's width against the viewport's: the whole page must not scroll sideways. */
export function pageWidths(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `probe` until it returns something truthy or `timeoutMs` passes; returns the last answer. */
export async function pollFor<T>(probe: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!last && Date.now() < deadline) {
    await sleep(150);
    last = await probe();
  }
  return last;
}
