import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The short URL may change with every deploy: caches check again after five minutes. */
export const LATEST_CACHE_CONTROL = 'public, max-age=300';
/** A versioned URL names one build's bytes forever. */
export const VERSIONED_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The widget script (docs/architecture.md), with its version (a digest of the bytes), its
 * Subresource Integrity value and a gzipped copy. The script is built from the TypeScript modules
 * in `browser/` (docs/architecture.md, "Widgets"):
 * - compiled (`node dist/main`, the Docker image): read once at start from `assets/widget.js`
 *   beside this file, which `npm run build` produced; no build tool is loaded;
 * - from the TypeScript sources (the tests, ts-node): bundled in memory with esbuild on first
 *   use, so the script served is always that of the sources, with nothing to build first.
 */
@Injectable()
export class WidgetAsset {
  private built?: Built;

  constructor() {
    if (!RUNNING_FROM_SOURCES) this.built = describe(readBuilt());
  }

  private get bundle(): Built {
    return (this.built ??= describe(bundleFromSources()));
  }

  get source(): Buffer {
    return this.bundle.source;
  }

  get gzipped(): Buffer {
    return this.bundle.gzipped;
  }

  /** 16 hex digits of the SHA-256 of the bytes: the versioned URL's name. */
  get version(): string {
    return this.bundle.version;
  }

  /** `sha384-…` for the `integrity` attribute of a script tag. */
  get integrity(): string {
    return this.bundle.integrity;
  }

  /** The versioned path, e.g. `/embed/v1/widget.3f2a9c0d1e4b5a6f.js`. */
  get versionedPath(): string {
    return `/embed/v1/widget.${this.version}.js`;
  }

  /**
   * Sends the script: loadable from any origin (CORS `*` so `crossorigin` plus `integrity` work,
   * Cross-Origin-Resource-Policy cross-origin), gzipped when the client accepts it, with an ETag
   * so a revalidation is a 304.
   */
  send(req: Request, res: Response, cacheControl: string): void {
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Widget-Version', this.version);
    res.vary('Accept-Encoding');
    res.setHeader('ETag', `"${this.version}${gzip ? '-gz' : ''}"`);
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.status(200).send(gzip ? this.gzipped : this.source);
  }
}

interface Built {
  source: Buffer;
  gzipped: Buffer;
  version: string;
  integrity: string;
}

function describe(source: Buffer): Built {
  return {
    source,
    gzipped: gzipSync(source, { level: 9 }),
    version: createHash('sha256').update(source).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(source).digest('base64')}`,
  };
}

/** ts-jest and ts-node run this very file; a build runs its compiled `.js`. */
const RUNNING_FROM_SOURCES = __filename.endsWith('.ts');

function readBuilt(): Buffer {
  const file = join(__dirname, 'assets', 'widget.js');
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: build the service with \`npm run build\`.`);
  }
  return readFileSync(file);
}

function bundleFromSources(): Buffer {
  // Loaded only here: esbuild is a dev dependency, absent from a production install.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const build = require('./widget-build') as typeof import('./widget-build');
  return build.buildWidget();
}
