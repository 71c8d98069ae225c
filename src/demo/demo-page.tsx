import type { ComponentChildren, VNode } from 'preact';
import { InlineStyle } from '../common/pages/inline';
import { page } from '../common/pages/layout';
import { HtmlPage } from '../common/pages/page';
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
    pagesArea: 'Страницы сервиса для партнёров',
    pages:
      'Партнёр входит в свой кабинет {portal} с тем же адресом почты и кодом из письма; новый партнёр подаёт заявку на {join}, её подтверждают в консоли ({console}).',
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
    pagesArea: 'The service’s pages for partners',
    pages:
      'A partner signs in to their portal {portal} with the same email and the code from the mail; a newcomer applies at {join}, and staff approve the application in the console ({console}).',
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

/** `text` with each `{name}` replaced by `values[name]` (text stays text: escaped like any other). */
function fill(text: string, values: Record<string, ComponentChildren>): ComponentChildren[] {
  return text.split(/\{(\w+)\}/).map((part, i) => (i % 2 ? values[part] : part));
}

export interface DemoPageOptions {
  demo: DemoInfo;
  locale: DemoLocale;
  base: string;
  widgetPath: string;
  integrity: string;
  smtp: boolean;
  /** The page's own query minus `lang`, kept by the language switch. */
  query: URLSearchParams;
}

/**
 * `/demo`: a tenant-like shop page on the service's own origin (which the demo tenant allows)
 * that embeds every widget with the snippet of docs/architecture.md. Its Content-Security-Policy
 * also allows scripts from 'self' (widget.js); it keeps no Cross-Origin-Opener-Policy so that the
 * sign-in popup can post back to it.
 */
export function demoPage(options: DemoPageOptions): HtmlPage {
  const { demo, locale, base } = options;
  const t = TEXT[locale];
  const user = demo.partner.memberId;
  const widget = (name: string, extra: Record<string, string> = {}, wide = false): VNode => (
    <div
      data-service-widget={name}
      data-user-id={name === 'referral-link' || name === 'lead-form' ? undefined : user}
      {...extra}
      class={wide ? 'wide' : undefined}
    />
  );
  const offer = { 'data-target-type': 'offer', 'data-target-id': DEMO_OFFER };
  const switchQuery = new URLSearchParams(options.query);
  switchQuery.set('lang', locale === 'ru' ? 'en' : 'ru');
  const snippet = [
    `<script src="${base}/embed/v1/widget.js" data-tenant="${demo.slug}" defer></script>`,
    '',
    `<div data-service-widget="cabinet" data-user-id="${user}"></div>`,
    `<div data-service-widget="bonuses" data-user-id="${user}"></div>`,
    `<div data-service-widget="leads" data-user-id="${user}"></div>`,
    `<div data-service-widget="referral-tree" data-user-id="${user}"></div>`,
    `<div data-service-widget="partners" data-user-id="${user}"></div>`,
    `<div data-service-widget="referral-link" data-target-type="offer" data-target-id="${DEMO_OFFER}"></div>`,
    '<div data-service-widget="lead-form"></div>',
    '',
    '<style>.shop { --sw-accent: #0e7c66; --sw-radius: 14px; }</style>',
  ].join('\n');
  const link = demo.shortUrl ? (
    <a href={demo.shortUrl} data-demo="short-link">
      {demo.shortUrl}
    </a>
  ) : (
    ''
  );
  return new HtmlPage(
    (nonce) => (
      <html lang={locale}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{t.title}</title>
          <link rel="icon" href="data:," />
          <InlineStyle nonce={nonce} css={STYLE} />
        </head>
        <body class="shop">
          <header>
            <b>{demo.displayName}</b>
            <nav>
              {t.nav.map((n) => (
                <span>{n}</span>
              ))}
            </nav>
            <a href={`/demo?${switchQuery.toString()}`} data-demo="lang">
              {t.lang}
            </a>
          </header>
          <main>
            <section class="intro">
              <h1>{t.title}</h1>
              <p>{fill(t.lead, { tenant: demo.displayName, name: <b>{demo.partner.name}</b> })}</p>
              <p>
                {fill(t.signIn, { email: <code data-demo="email">{demo.partner.email}</code> })}{' '}
                {options.smtp ? t.codeSmtp : t.codeLog}
              </p>
              <details>
                <summary>{t.snippet}</summary>
                <pre tabIndex={0}>{snippet}</pre>
              </details>
            </section>
            <h2 class="area">{t.partnerArea}</h2>
            <div class="grid">
              {widget('cabinet', {}, true)}
              {widget('bonuses')}
              {widget('leads')}
              {widget('referral-tree')}
              {widget('partners')}
              {widget('referral-link', offer)}
            </div>
            <h2 class="area">{t.visitorArea}</h2>
            <p class="intro">{fill(t.visitor, { link })}</p>
            <div class="grid">{widget('lead-form')}</div>
            <h2 class="area">{t.pagesArea}</h2>
            <p class="intro">
              {fill(t.pages, {
                portal: <a href={`/p/${demo.slug}`} data-demo="portal">{`/p/${demo.slug}`}</a>,
                join: (
                  <a href={`/p/${demo.slug}/join`} data-demo="join">{`/p/${demo.slug}/join`}</a>
                ),
                console: (
                  <a href={`/org/${demo.slug}/applications`} data-demo="applications">
                    {`/org/${demo.slug}/applications`}
                  </a>
                ),
              })}
            </p>
          </main>
          <script
            src={options.widgetPath}
            integrity={options.integrity}
            crossorigin="anonymous"
            nonce={nonce}
            data-tenant={demo.slug}
            data-locale={locale}
            defer
          />
        </body>
      </html>
    ),
    { keepOpener: true, scriptsFromSelf: true },
  );
}

/** `/demo` in production, or where no demo tenant was seeded. */
export function noDemoPage(): HtmlPage {
  return page(
    { status: 404, title: 'No demo here' },
    <>
      <h1>No demo here</h1>
      <p class="muted">
        The demo tenant is created on the first start outside production with an empty database, and
        is never served in production.
      </p>
    </>,
  );
}
