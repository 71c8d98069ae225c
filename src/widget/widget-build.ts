import { buildSync, type BuildOptions } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Builds widget.js from its TypeScript sources in `browser/` (docs/architecture.md, "Widgets"):
 * one minified ES2020 IIFE, the same bytes whoever builds it. Development and build time only:
 * esbuild is a dev dependency, so nothing in production loads this file. `npm run build:widget`
 * runs it as a script (before `nest build`, which copies the result into dist); `WidgetAsset`
 * calls `buildWidget()` when the service runs from its TypeScript sources (tests, ts-node).
 */

/** The entry module of the widget script. */
export const WIDGET_ENTRY = join(__dirname, 'browser', 'main.ts');

/** Where `npm run build:widget` writes the bundle (git-ignored); `nest build` copies it to dist. */
export const WIDGET_OUTFILE = join(__dirname, 'assets', 'widget.js');

export const WIDGET_BUILD_OPTIONS: BuildOptions = {
  entryPoints: [WIDGET_ENTRY],
  tsconfig: join(__dirname, 'browser', 'tsconfig.json'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  // What the hand-written script was: ES2020 (Chrome 80+, Firefox 80+, Safari 14+).
  target: 'es2020',
  minify: true,
  // The Russian texts as UTF-8, not \u escapes (served with charset=utf-8): a third smaller.
  charset: 'utf8',
  legalComments: 'none',
  banner: { js: '/*! Referral service widgets (docs/architecture.md). MIT licence. */' },
  write: false,
  logLevel: 'silent',
};

/** The bundle's bytes. Throws with esbuild's messages when the sources do not build. */
export function buildWidget(): Buffer {
  const result = buildSync(WIDGET_BUILD_OPTIONS);
  return Buffer.from(result.outputFiles![0].contents);
}

/** Writes the bundle to `file` atomically (a reader never sees half a file). */
export function writeWidget(file = WIDGET_OUTFILE): Buffer {
  const bytes = buildWidget();
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, bytes);
  renameSync(partial, file);
  return bytes;
}

if (require.main === module) {
  const bytes = writeWidget(process.argv[2] ?? WIDGET_OUTFILE);
  process.stdout.write(`widget.js: ${bytes.length} bytes\n`);
}
