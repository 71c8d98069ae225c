import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/auth/auth.decorators';
import { sendPage } from '../common/http/html';
import { AppConfig } from '../config/app-config';
import { WidgetAsset } from '../widget/widget-asset';
import { sendDemoPage } from './demo-page';
import { DemoSeeder } from './demo-seeder.service';

/** `GET /demo`: every widget on a tenant-like page, outside production (issue 7). */
@ApiExcludeController()
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
