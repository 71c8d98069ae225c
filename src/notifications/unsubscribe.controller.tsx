import { Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/access/access.decorators';
import { canonicalLocale, labelLanguage } from '../common/i18n/format';
import { ApiHtmlPages } from '../common/http/html-openapi';
import { errorPage } from '../common/pages/error-page';
import { page } from '../common/pages/layout';
import type { HtmlPage } from '../common/pages/page';
import { Pages } from '../common/pages/pages.decorator';
import { AppConfig } from '../config/app-config';
import { MembersService } from '../members/members.service';
import { NOTIFICATION_TYPES, type NotificationType } from './notification-preference.entity';
import { NotificationsService } from './notifications.service';
import { NotificationLogRepository } from './mail/notification-log.repository';
import { type UnsubscribeClaims, verifyUnsubscribe } from './mail/unsubscribe-token';

const TEXTS = {
  en: {
    confirmTitle: 'Unsubscribe?',
    confirm: (program: string, types: string) =>
      `You will no longer get these mails from ${program}: ${types}.`,
    button: 'Unsubscribe',
    doneTitle: 'You are unsubscribed',
    done: (program: string, types: string) =>
      `${program} will no longer mail you: ${types}. You can turn them on again in the partner portal.`,
    badTitle: 'This link does not work',
    bad: 'The unsubscribe link is damaged. Open it again from the mail, or change your notifications in the partner portal.',
  },
  ru: {
    confirmTitle: 'Отписаться?',
    confirm: (program: string, types: string) =>
      `Вы больше не будете получать эти письма от ${program}: ${types}.`,
    button: 'Отписаться',
    doneTitle: 'Вы отписались',
    done: (program: string, types: string) =>
      `${program} больше не будет присылать вам: ${types}. Включить их снова можно в кабинете партнёра.`,
    badTitle: 'Ссылка не работает',
    bad: 'Ссылка для отписки повреждена. Откройте её снова из письма или измените уведомления в кабинете партнёра.',
  },
};

const TOKEN = { name: 'token', required: true, description: 'The signed token of the mail' };

/**
 * One-click unsubscribe (RFC 8058, docs/notifications.md): the URL of every partner mail's
 * `List-Unsubscribe`. A POST (what a mail client sends, with `List-Unsubscribe=One-Click`, or the
 * confirming page's button) turns the mail's types off for its member; it needs no session and no
 * CSRF token, for the signed token in the URL is the credential (the page-form guard is not
 * applied to this controller, and no body is read). The GET changes nothing and shows a page to
 * confirm. A token changed by one byte is a 400 page.
 */
@ApiTags('partner-mail')
@Controller('notifications/unsubscribe')
@Public()
@Pages()
export class UnsubscribeController {
  constructor(
    private readonly config: AppConfig,
    private readonly log: NotificationLogRepository,
    private readonly members: MembersService,
    private readonly notifications: NotificationsService,
  ) {}

  /** A page to confirm: what would be turned off, and a button that does it. */
  @Get()
  @ApiQuery(TOKEN)
  @ApiHtmlPages([200, 'The page to confirm'], [400, 'The token is damaged'])
  async confirm(@Query('token') token: unknown): Promise<HtmlPage> {
    const found = await this.resolve(token);
    if (!found) return this.bad();
    const { tenant, claims, t, lang } = found;
    return page(
      { title: t.confirmTitle, lang },
      <>
        <h1>{t.confirmTitle}</h1>
        <p>{t.confirm(tenant.displayName, claims.k.join(', '))}</p>
        <form
          method="post"
          action={`/notifications/unsubscribe?token=${encodeURIComponent(String(token))}`}
        >
          <button type="submit">{t.button}</button>
        </form>
      </>,
    );
  }

  /** Turns the token's types off for its member (RFC 8058 one-click). */
  @Post()
  @HttpCode(200)
  @ApiQuery(TOKEN)
  @ApiHtmlPages([200, 'Unsubscribed'], [400, 'The token is damaged'])
  async unsubscribe(@Query('token') token: unknown): Promise<HtmlPage> {
    const found = await this.resolve(token);
    if (!found) return this.bad();
    const { tenant, claims, t, lang } = found;
    const types = claims.k.filter((k): k is NotificationType =>
      (NOTIFICATION_TYPES as readonly string[]).includes(k),
    );
    await this.notifications.updateOwn(
      tenant.id,
      claims.m,
      Object.fromEntries(types.map((type) => [type, 'off'])),
    );
    return page(
      { title: t.doneTitle, lang },
      <>
        <h1>{t.doneTitle}</h1>
        <p>{t.done(tenant.displayName, types.join(', '))}</p>
      </>,
    );
  }

  private async resolve(token: unknown) {
    const claims: UnsubscribeClaims | undefined = verifyUnsubscribe(token, this.config.jwtSecret);
    if (!claims) return undefined;
    const tenant = await this.log.tenant(claims.t);
    if (!tenant || !(await this.members.findMember(tenant.id, claims.m))) return undefined;
    const lang = labelLanguage(canonicalLocale(tenant.locale) ?? 'ru-RU');
    return { tenant, claims, lang, t: TEXTS[lang] };
  }

  private bad(): HtmlPage {
    return errorPage({
      status: 400,
      title: TEXTS.en.badTitle,
      lines: [TEXTS.en.bad, TEXTS.ru.bad],
    });
  }
}
