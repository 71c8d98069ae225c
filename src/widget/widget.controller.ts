import { applyDecorators, Controller, Get, Param, Req, Res } from '@nestjs/common';
import {
  ApiNotModifiedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { credentialsOf } from '../access/credentials';
import { EmbedOriginPolicy } from '../access/embed-origin';
import { DomainError, NotFoundError } from '../common/errors/domain-error';
import { ApiProblems } from '../common/errors/problem.response';
import { AppConfig } from '../config/app-config';
import { WidgetManifestResponse, WidgetOriginCheckResponse } from './dto/widget.response';
import { LATEST_CACHE_CONTROL, VERSIONED_CACHE_CONTROL, WidgetAsset } from './widget-asset';

/**
 * The embeddable widgets (docs/architecture.md): `GET /embed/v1/widget.js` (the current build,
 * short cache) and
 * `GET /embed/v1/widget.<version>.js` (one build, immutable, for `integrity`), their manifest, and
 * the origin check the script uses to tell a refused origin from an outage.
 */
@ApiTags('embed')
@Controller('embed/v1')
@Public()
export class WidgetController {
  private readonly base: string;
  private readonly ownOrigin: string;

  constructor(
    private readonly asset: WidgetAsset,
    private readonly origins: EmbedOriginPolicy,
    config: AppConfig,
  ) {
    this.base = config.publicBaseUrl.replace(/\/+$/, '');
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  @Get('widget.js')
  @ApiOperation({
    summary: 'The widget script, current build',
    description:
      'The `src` of the page\'s script tag (with `data-tenant="<slug>"` and `defer`): cached 5 minutes, ' +
      'loadable from any origin, gzipped when accepted, with an `ETag`.',
  })
  @ApiWidgetScript()
  latest(@Req() req: Request, @Res() res: Response): void {
    this.asset.send(req, res, LATEST_CACHE_CONTROL);
  }

  @Get('widget.:version.js')
  @ApiOperation({
    summary: 'The widget script, one build (immutable)',
    description:
      'The `versioned_url` of `widget.json`, for a script tag with its `integrity` value; ' +
      'cached for a year. Another version than the current build is 404.',
  })
  @ApiWidgetScript()
  @ApiProblems([404, 'not_found'])
  versioned(@Param('version') version: string, @Req() req: Request, @Res() res: Response): void {
    if (version !== this.asset.version) {
      throw new NotFoundError(
        'not_found',
        `No widget build "${version}"; the current one is ${this.asset.version}.`,
      );
    }
    this.asset.send(req, res, VERSIONED_CACHE_CONTROL);
  }

  /** The current widget build: its URLs and Subresource Integrity value. */
  @Get('widget.json')
  manifest(@Res({ passthrough: true }) res: Response): WidgetManifestResponse {
    res.setHeader('Cache-Control', LATEST_CACHE_CONTROL);
    res.setHeader('Access-Control-Allow-Origin', '*');
    return {
      version: this.asset.version,
      url: `${this.base}/embed/v1/widget.js`,
      versioned_url: `${this.base}${this.asset.versionedPath}`,
      integrity: this.asset.integrity,
      bytes: this.asset.source.length,
      gzip_bytes: this.asset.gzipped.length,
    };
  }

  /**
   * Whether the Embed APIs accept this tenant's requests from the calling page's origin. Readable
   * from any origin, unlike the Embed APIs' own refusals, so the widget can tell its developer
   * why it was refused, and, when allowed, the tenant's locale, which the widgets use on a page
   * that names none. It tells nothing a request with a forged Origin would not.
   */
  @Get('widget/origin-check')
  @ApiQuery({ name: 'tenant', required: true, description: 'The tenant slug', example: 'acme' })
  async originCheck(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WidgetOriginCheckResponse> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Access-Control-Allow-Origin', '*');
    const tenant = typeof req.query.tenant === 'string' ? req.query.tenant : '';
    const header = req.header('origin');
    const origin =
      header && header !== 'null'
        ? header
        : !header && req.header('sec-fetch-site') === 'same-origin'
          ? this.ownOrigin
          : null;
    try {
      const parts = credentialsOf(req);
      const gate = await this.origins.check(parts.tenant, parts.origin, parts.secFetchSite);
      return {
        tenant,
        origin,
        allowed: true,
        code: null,
        detail: null,
        locale: gate.tenant.locale,
      };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return {
        tenant,
        origin,
        allowed: false,
        code: error.code,
        detail: error.detail,
        locale: null,
      };
    }
  }
}

/** The script answer: JavaScript, or 304 when the client's ETag is current. */
function ApiWidgetScript(): MethodDecorator {
  return applyDecorators(
    ApiProduces('text/javascript'),
    ApiOkResponse({
      description: 'The script',
      content: { 'text/javascript': { schema: { type: 'string' } } },
    }),
    ApiNotModifiedResponse({ description: 'The `If-None-Match` ETag is current' }),
  );
}
