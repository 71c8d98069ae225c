import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../common/access/access.decorators';
import { ApiHtmlPages } from '../common/http/html-openapi';
import type { HtmlPage } from '../common/pages/page';
import { Pages } from '../common/pages/pages.decorator';
import { AppConfig } from '../config/app-config';
import { WidgetAsset } from '../widget/widget-asset';
import { demoPage, noDemoPage } from './demo-page';
import { DemoSeeder } from './demo-seeder.service';

/** `GET /demo`: every widget on a tenant-like page (README.md; DemoModule is not in production). */
@ApiTags('demo')
@Controller('demo')
@Public()
@Pages()
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
      'Served only outside production: with `NODE_ENV=production` the demo module is not loaded ' +
      'and there is no such page. It is the 404 page wherever no demo tenant was seeded (it is ' +
      'seeded on a development start with an empty database or by the `demo:seed` command, never ' +
      "under tests). Query parameters other than `lang` are kept in the page's address, e.g. a " +
      '`ref` for the lead-form widget.',
  })
  @ApiQuery({ name: 'lang', required: false, enum: ['ru', 'en'], description: 'Default `ru`' })
  @ApiHtmlPages([200, 'The demo page'], [404, 'No demo here (not seeded)'])
  async page(@Query('lang') lang: unknown, @Req() req: Request): Promise<HtmlPage> {
    const demo = await this.seeder.current();
    if (!demo) {
      return noDemoPage();
    }
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(req.query)) {
      if (key !== 'lang' && typeof value === 'string') query.set(key, value);
    }
    return demoPage({
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
