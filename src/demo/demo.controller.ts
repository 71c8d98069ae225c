import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { sendPage } from '../common/http/html';
import { ApiHtmlPages } from '../common/http/html-openapi';
import { AppConfig } from '../config/app-config';
import { WidgetAsset } from '../widget/widget-asset';
import { sendDemoPage } from './demo-page';
import { DemoSeeder } from './demo-seeder.service';

/** `GET /demo`: every widget on a tenant-like page, outside production (issue 7). */
@ApiTags('demo')
@Controller('demo')
@Public()
export class DemoController {
  private readonly base: string;

  constructor(
    private readonly seeder: DemoSeeder,
    private readonly widget: WidgetAsset,
    private readonly config: AppConfig,
  ) {
    this.base = config.publicBaseUrl.replace(/\/+$/, '');
  }

  @Get()
  @ApiOperation({
    summary: 'The demo page: every widget against the demo tenant (not in production)',
    description:
      'Served only outside production: with `NODE_ENV=production` it is always the 404 page, and ' +
      'so it is wherever no demo tenant was seeded (it is seeded on a development start with an ' +
      'empty database, never under tests). Query parameters other than `lang` are kept in the ' +
      "page's address, e.g. a `ref` for the lead-form widget.",
  })
  @ApiQuery({ name: 'lang', required: false, enum: ['ru', 'en'], description: 'Default `ru`' })
  @ApiHtmlPages([200, 'The demo page'], [404, 'No demo here (production, or not seeded)'])
  async page(@Query('lang') lang: unknown, @Req() req: Request, @Res() res: Response) {
    const demo = this.config.isProduction ? null : await this.seeder.current();
    if (!demo) {
      return sendPage(res, {
        status: 404,
        title: 'No demo here',
        body:
          '<h1>No demo here</h1><p class="muted">The demo tenant is created on the first start ' +
          'outside production with an empty database, and is never served in production.</p>',
      });
    }
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(req.query)) {
      if (key !== 'lang' && typeof value === 'string') query.set(key, value);
    }
    sendDemoPage(res, {
      demo,
      locale: lang === 'en' ? 'en' : 'ru',
      base: this.base,
      widgetPath: this.widget.versionedPath,
      integrity: this.widget.integrity,
      smtp: Boolean(this.config.smtpUrl),
      query,
    });
  }
}
