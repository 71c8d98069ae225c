import type { Response } from 'express';
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../common/http/html';
import { DEMO_OFFER } from './demo-data';
import type { DemoInfo } from './demo-seeder.service';

export type DemoLocale = 'ru' | 'en';

const TEXT = {
  ru: {
    title: 'Демо: виджеты партнёрской программы',
    nav: ['Каталог', 'Доставка', 'Партнёрам'],
    lead: 'Это страница магазина-арендатора «{tenant}», которая встроила все виджеты сервиса одним тегом <script>. Данные живые: демо-партнёр {name} и его сеть.',
    signIn: 'Кнопка «Получить ссылку» откроет окно входа: введите {email} и код из письма.',
    codeLog:
      'SMTP_URL не задан, поэтому письмо с кодом печатается в журнал сервиса (строка «Mail (no SMTP_URL, development)»).',
    codeSmtp: 'Письмо уйдёт через SMTP_URL.',
    visitor:
      'Посетитель, пришедший по ссылке партнёра, видит форму заявки. Откройте ссылку {link} — она приведёт сюда же с параметром ref, и форма ниже заработает.',
    snippet: 'Как это встроено',
    partnerArea: 'Кабинет партнёра',
    visitorArea: 'Для посетителя',
    lang: 'English',
  },
  en: {
    title: 'Demo: partner program widgets',
    nav: ['Catalogue', 'Delivery', 'Partners'],
    lead: 'This is a page of the tenant shop “{tenant}” that embeds every widget of the service with one <script> tag. The data is live: demo partner {name} and their network.',
    signIn: '“Get my link” opens the sign-in window: enter {email} and the code from the mail.',
    codeLog:
      'SMTP_URL is not set, so the mail with the code is written to the service log (the line “Mail (no SMTP_URL, development)”).',
    codeSmtp: 'The mail goes out through SMTP_URL.',
    visitor:
      'A visitor who arrives through the partner’s link sees the lead form. Open {link}: it leads back here with a ref parameter, and the form below starts working.',
    snippet: 'How it is embedded',
    partnerArea: 'Partner area',
    visitorArea: 'For visitors',
    lang: 'Русский',
  },
} as const;

const STYLE = `
  :root { color-scheme: light; }
  body { margin: 0; font: 15px/1.5 Georgia, 'Times New Roman', serif; color: #2b2118; background: #f7f3ec; }
  /* The host page's own rules: they do not reach into the widgets' shadow roots. */
  button { font-family: inherit; text-transform: uppercase; letter-spacing: .1em; }
  ul { list-style: square; } h2 { font-variant: small-caps; }
  header { display: flex; flex-wrap: wrap; gap: 24px; align-items: center; padding: 16px 32px; background: #2b2118; color: #f7f3ec; }
  header b { font-size: 22px; letter-spacing: .04em; }
  header nav { display: flex; gap: 20px; flex: 1; }
  header a { color: #f2c879; }
  main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; }
  .intro { max-width: 780px; }
  .intro code, pre { font: 13px/1.5 ui-monospace, Menlo, Consolas, monospace; }
  pre { background: #fffdf8; border: 1px solid #e6dccb; border-radius: 8px; padding: 12px 16px; overflow-x: auto; }
  details { margin: 12px 0 24px; }
  h1 { font-size: 28px; margin: 8px 0 12px; }
  h2.area { font-size: 20px; margin: 32px 0 12px; border-bottom: 1px solid #e6dccb; padding-bottom: 6px; }
  .shop { --sw-accent: #0e7c66; --sw-radius: 14px; --sw-surface: #f3f7f5; --sw-border: #dfe7e3; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 20px; align-items: start; }
  .wide { grid-column: 1 / -1; }
`;

/**
 * `/demo`: a tenant-like shop page on the service's own origin (which the demo tenant allows)
 * that embeds every widget with the snippet of SPEC 8. Its own Content-Security-Policy allows
 * scripts from 'self' only; it keeps no Cross-Origin-Opener-Policy so that the sign-in popup can
 * post back to it.
 */
export function sendDemoPage(
  res: Response,
  options: {
    demo: DemoInfo;
    locale: DemoLocale;
    base: string;
    widgetPath: string;
    integrity: string;
    smtp: boolean;
    /** The page's own query minus `lang`, kept by the language switch. */
    query: URLSearchParams;
  },
): void {
  const { demo, locale, base } = options;
  const t = TEXT[locale];
  const nonce = randomBytes(16).toString('base64');
  const fill = (text: string, values: Record<string, string>) =>
    escapeHtml(text).replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');
  const user = escapeHtml(demo.partner.memberId);
  const widget = (name: string, extra = '', wide = false) =>
    `<div data-service-widget="${name}"${name === 'referral-link' || name === 'lead-form' ? '' : ` data-user-id="${user}"`}${extra}${wide ? ' class="wide"' : ''}></div>`;
  const switchQuery = new URLSearchParams(options.query);
  switchQuery.set('lang', locale === 'ru' ? 'en' : 'ru');
  const snippet = [
    `<script src="${base}/embed/v1/widget.js" data-tenant="${demo.slug}" defer></script>`,
    '',
    `<div data-service-widget="cabinet" data-user-id="${demo.partner.memberId}"></div>`,
    `<div data-service-widget="bonuses" data-user-id="${demo.partner.memberId}"></div>`,
    `<div data-service-widget="leads" data-user-id="${demo.partner.memberId}"></div>`,
    `<div data-service-widget="referral-tree" data-user-id="${demo.partner.memberId}"></div>`,
    `<div data-service-widget="partners" data-user-id="${demo.partner.memberId}"></div>`,
    `<div data-service-widget="referral-link" data-target-type="offer" data-target-id="${DEMO_OFFER}"></div>`,
    '<div data-service-widget="lead-form"></div>',
    '',
    '<style>.shop { --sw-accent: #0e7c66; --sw-radius: 14px; }</style>',
  ].join('\n');
  const link = demo.shortUrl
    ? `<a href="${escapeHtml(demo.shortUrl)}" data-demo="short-link">${escapeHtml(demo.shortUrl)}</a>`
    : '';

  res.status(200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
      `connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; ` +
      `base-uri 'none'`,
  );
  res.removeHeader('Cross-Origin-Opener-Policy');
  res.send(`<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(t.title)}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${STYLE}</style></head>
<body class="shop">
<header><b>${escapeHtml(demo.displayName)}</b><nav>${t.nav.map((n) => `<span>${escapeHtml(n)}</span>`).join('')}</nav>
<a href="/demo?${escapeHtml(switchQuery.toString())}" data-demo="lang">${escapeHtml(t.lang)}</a></header>
<main>
<section class="intro">
<h1>${escapeHtml(t.title)}</h1>
<p>${fill(t.lead, { tenant: escapeHtml(demo.displayName), name: `<b>${escapeHtml(demo.partner.name)}</b>` })}</p>
<p>${fill(t.signIn, { email: `<code data-demo="email">${escapeHtml(demo.partner.email)}</code>` })} ${escapeHtml(options.smtp ? t.codeSmtp : t.codeLog)}</p>
<details><summary>${escapeHtml(t.snippet)}</summary><pre>${escapeHtml(snippet)}</pre></details>
</section>
<h2 class="area">${escapeHtml(t.partnerArea)}</h2>
<div class="grid">
${widget('cabinet', '', true)}
${widget('bonuses')}
${widget('leads')}
${widget('referral-tree')}
${widget('partners')}
${widget('referral-link', ` data-target-type="offer" data-target-id="${DEMO_OFFER}"`)}
</div>
<h2 class="area">${escapeHtml(t.visitorArea)}</h2>
<p class="intro">${fill(t.visitor, { link })}</p>
<div class="grid">
${widget('lead-form')}
</div>
</main>
<script src="${escapeHtml(options.widgetPath)}" integrity="${escapeHtml(options.integrity)}" crossorigin="anonymous" nonce="${nonce}" data-tenant="${escapeHtml(demo.slug)}" data-locale="${locale}" defer></script>
</body></html>`);
}
