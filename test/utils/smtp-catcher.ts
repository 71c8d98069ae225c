import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail received over a real SMTP exchange. */
export interface CaughtMail {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  /** Header fields, names lower-cased, folded lines joined. */
  headers: Record<string, string>;
  subject: string;
  /** The decoded text/plain body. */
  text: string;
  /** The decoded text/html body of a multipart mail, if any. */
  html?: string;
  /** The first 6-digit number in the text, if any (the sign-in code). */
  code?: string;
  raw: string;
  at: number;
}

export interface SmtpCatcher {
  port: number;
  /** `smtp://127.0.0.1:<port>` for SMTP_URL. */
  url: string;
  mails: CaughtMail[];
  /** Every mail so far addressed to `email`. */
  mailsTo: (email: string) => CaughtMail[];
  /**
   * The next mail to `email` not yet taken by an earlier call, waiting up to `timeoutMs` for it.
   * Mails are taken in the order they arrived.
   */
  take: (email: string, timeoutMs?: number) => Promise<CaughtMail>;
  /** How many mails to `email` have not been taken yet. */
  pending: (email: string) => number;
  close: () => Promise<void>;
}

/**
 * An in-process SMTP server on loopback that accepts every mail (no TLS, no AUTH) and keeps it,
 * parsed, for the test. The service's mailer talks to it with real SMTP through SMTP_URL.
 */
export interface SmtpCatcherOptions {
  /** Listen on this port (a restarted server on the same port); a free one if absent. */
  port?: number;
  /** An SMTP status (5xx: permanent) to refuse a recipient with, or undefined to take it. */
  refuse?: (address: string) => number | undefined;
  /** Called right after a mail is accepted (its 250 is on its way): the crash tests kill here. */
  accepted?: (mail: CaughtMail) => void;
}

export async function startSmtpCatcher(options: SmtpCatcherOptions = {}): Promise<SmtpCatcher> {
  const mails: CaughtMail[] = [];
  const taken = new Map<string, number>();
  const waiters = new Set<() => void>();

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    disableReverseLookup: true,
    closeTimeout: 1000,
    onRcptTo(address, _session, callback) {
      const code = options.refuse?.(address.address.toLowerCase());
      if (code === undefined) return callback();
      callback(
        Object.assign(new Error(`${code} refused: ${address.address}`), { responseCode: code }),
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelope = session.envelope;
        const mail = {
          ...parseMail(raw),
          from: envelope.mailFrom ? envelope.mailFrom.address : '',
          to: envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw,
          at: Date.now(),
        };
        mails.push(mail);
        for (const wake of [...waiters]) wake();
        callback();
        options.accepted?.(mail);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  const mailsTo = (email: string) => mails.filter((m) => m.to.includes(email.toLowerCase()));
  const pending = (email: string) => mailsTo(email).length - (taken.get(email.toLowerCase()) ?? 0);

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    mailsTo,
    pending,
    take: (email, timeoutMs = 10_000) =>
      new Promise<CaughtMail>((resolve, reject) => {
        const key = email.toLowerCase();
        const tryTake = () => {
          const index = taken.get(key) ?? 0;
          const mail = mailsTo(key)[index];
          if (!mail) return false;
          taken.set(key, index + 1);
          resolve(mail);
          return true;
        };
        if (tryTake()) return;
        const wake = () => {
          if (!tryTake()) return;
          clearTimeout(timer);
          waiters.delete(wake);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no mail to ${email} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough RFC 5322 / MIME to read a one-part (or multipart) text mail. */
function parseMail(
  raw: string,
): Pick<CaughtMail, 'headers' | 'subject' | 'text' | 'html' | 'code'> {
  const { headers, body } = splitPart(raw);
  const text = textOf(headers, body);
  return {
    headers,
    subject: decodeWords(headers['subject'] ?? ''),
    text,
    html: textOf(headers, body, 'html') || undefined,
    code: /\b\d{6}\b/.exec(text)?.[0],
  };
}

function splitPart(part: string): { headers: Record<string, string>; body: string } {
  const split = /\r?\n\r?\n/.exec(part);
  const head = split ? part.slice(0, split.index) : part;
  const body = split ? part.slice(split.index + split[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function textOf(
  headers: Record<string, string>,
  body: string,
  subtype: 'plain' | 'html' = 'plain',
): string {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1, -1);
    for (const part of parts) {
      const inner = splitPart(part.replace(/^\r?\n/, ''));
      const text = textOf(inner.headers, inner.body, subtype);
      if (text) return text;
    }
    return '';
  }
  if (!new RegExp(`^text/${subtype}`, 'i').test(type)) return '';
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

function decodeQuotedPrintable(value: string): string {
  const soft = value.replace(/=\r?\n/g, '');
  const bytes: Buffer[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(Buffer.from([parseInt(hex, 16)]));
      i += 2;
    } else {
      const char = String.fromCodePoint(soft.codePointAt(i)!);
      bytes.push(Buffer.from(char, 'utf8'));
      i += char.length - 1;
    }
  }
  return Buffer.concat(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi,
      (_m, _charset: string, kind: string, text: string) =>
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64').toString('utf8')
          : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
