import type { Page } from 'playwright-core';

/** axe-core, a maintained WCAG checker, injected into the page under test. */
const AXE = require.resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string;
  nodes: { target: unknown[]; failureSummary: string }[];
}

/** axe's WCAG 2 A/AA violations of the page as it is now (Shadow DOMs included), one line each. */
export async function violations(page: Page, extraTags: string[] = []): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async (extra) => {
    const axe = (window as unknown as { axe: { run: (...a: unknown[]) => Promise<unknown> } }).axe;
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', ...extra] },
    })) as { violations: unknown[] };
    return result.violations;
  }, extraTags);
  return (found as Violation[]).flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} — ${n.failureSummary}`),
  );
}
