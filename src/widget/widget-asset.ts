import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The short URL may change with every deploy: caches check again after five minutes. */
export const LATEST_CACHE_CONTROL = 'public, max-age=300';
/** A versioned URL names one build's bytes forever. */
export const VERSIONED_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The widget script (SPEC 8), read once at start from `assets/widget.js` beside this file (the
 * build copies it into dist), with its version (a digest of the bytes), its Subresource Integrity
 * value and a gzipped copy.
 */
@Injectable()
export class WidgetAsset {
  readonly source: Buffer;
  readonly gzipped: Buffer;
  /** 16 hex digits of the SHA-256 of the bytes: the versioned URL's name. */
  readonly version: string;
  /** `sha384-…` for the `integrity` attribute of a script tag. */
  readonly integrity: string;

  constructor() {
    this.source = readFileSync(join(__dirname, 'assets', 'widget.js'));
    this.gzipped = gzipSync(this.source, { level: 9 });
    this.version = createHash('sha256').update(this.source).digest('hex').slice(0, 16);
    this.integrity = `sha384-${createHash('sha384').update(this.source).digest('base64')}`;
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
