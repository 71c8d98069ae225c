import type { ComponentChildren } from 'preact';
import { InlineScript, InlineStyle, ScriptData } from './inline';
import { HtmlPage, type PageInit } from './page';
import { STYLE } from './style';

export interface LayoutOptions extends PageInit {
  /** The document's title (escaped like every other value). */
  title: string;
  /** Admin pages: a wide layout with tables (still usable on a phone). */
  wide?: boolean;
  /** A script constant of the code, run with the page's nonce (no other script runs). */
  script?: string;
  /** JSON data for the script, in `<script type="application/json" id="data">`. */
  data?: unknown;
  /** The document's language (`en` unless said). */
  lang?: string;
  /** More style after the common sheet, and a class for `body` (the partner portal's look). */
  theme?: { bodyClass: string; style: string };
}

/**
 * A service page (popup, landing page, admin pages, errors): the common document around `body`,
 * rendered when it is sent, with that response's CSP nonce on its style and script.
 */
export function page(options: LayoutOptions, body: ComponentChildren): HtmlPage {
  const { title, wide, script, data, lang, theme, ...init } = options;
  return new HtmlPage(
    (nonce) => (
      <html lang={lang ?? 'en'}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{title}</title>
          <InlineStyle nonce={nonce} css={STYLE + (theme?.style ?? '')} />
        </head>
        <body class={theme?.bodyClass}>
          <main class={wide ? 'wide' : undefined}>{body}</main>
          {data !== undefined && <ScriptData id="data" value={data} />}
          {script !== undefined && <InlineScript nonce={nonce} code={script} />}
        </body>
      </html>
    ),
    init,
  );
}
