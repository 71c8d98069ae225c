import type { Request } from 'express';
import { ErrorLines, LinkOn } from './components';
import { page } from './layout';
import type { HtmlPage } from './page';

export interface ErrorPageOptions {
  status: number;
  title: string;
  lines: readonly string[];
  /** A way on: `[href, text]`. */
  link?: readonly [string, string];
  /** Popup pages keep `window.opener` (docs/embedding.md §4). */
  keepOpener?: boolean;
  headers?: Readonly<Record<string, string>>;
}

/** An HTML error page of the service: its title, what went wrong, and maybe a way on. */
export function errorPage(options: ErrorPageOptions): HtmlPage {
  const { title, lines, link, ...init } = options;
  return page(
    { title, ...init },
    <>
      <h1>{title}</h1>
      <ErrorLines lines={lines} />
      {link && <LinkOn href={link[0]}>{link[1]}</LinkOn>}
    </>,
  );
}

/** Whether `req` is one of the popup's (whose pages keep `window.opener`). */
export function isPopupRequest(req: Request): boolean {
  return req.originalUrl.startsWith('/oauth');
}

/** The page of a 5xx answer to a person: try again, with the request's reference. */
export function serverErrorPage(
  req: Request,
  status: number,
  requestId: string | undefined,
  headers?: Readonly<Record<string, string>>,
): HtmlPage {
  const away = status === 503;
  return errorPage({
    status,
    headers,
    keepOpener: isPopupRequest(req),
    title: away ? 'Temporarily unavailable' : 'Something went wrong',
    lines: [
      away
        ? 'The service cannot reach its database right now. Please try again in a few seconds.'
        : `Please try again later. If it happens again, quote this reference: ${requestId ?? 'none'}.`,
    ],
  });
}
