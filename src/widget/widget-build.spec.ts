import { gzipSync } from 'node:zlib';
import { buildWidget } from './widget-build';

/** The widget script's budget (docs/performance.md): what a partner's page pays for every widget at once. */
const GZIP_BUDGET = 30 * 1024;

describe('widget.js, bundled from src/widget/browser', () => {
  let bundle: Buffer;
  beforeAll(() => {
    bundle = buildWidget();
  });

  it('stays under 30 KB gzipped', () => {
    // Level 9, as WidgetAsset serves it.
    const gzipped = gzipSync(bundle, { level: 9 }).length;
    process.stdout.write(
      `widget.js: ${bundle.length} bytes, ${gzipped} bytes gzipped (budget ${GZIP_BUDGET})\n`,
    );
    expect(gzipped).toBeLessThan(GZIP_BUDGET);
  });

  it('is the same bytes on every build, so every instance serves the same version', () => {
    expect(buildWidget().equals(bundle)).toBe(true);
  });

  it('is one strict IIFE that leaves nothing in the global scope but ServiceWidgets', () => {
    const code = bundle.toString('utf8');
    expect(code).toMatch(/^\/\*! Referral service widgets .*\*\/\n"use strict";\(\(\)=>\{/);
    expect(code.trimEnd()).toMatch(/\}\)\(\);$/);
    expect(code).toContain('ServiceWidgets');
  });
});
