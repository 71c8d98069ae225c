import { render } from 'preact-render-to-string';
import { canonicalLocale, formatMoney, labelLanguage } from '../../common/i18n/format';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { withBrandingDefaults, withMailDefaults } from '../../tenants/mail-settings';
import type { LogType } from './mail-sources';
import { MAIL_TEXTS, type MailWords } from './mail-texts';

export type MailTenant = Pick<
  TenantEntity,
  'displayName' | 'locale' | 'currency' | 'branding' | 'notifications'
>;

/** One mail's content: its subject, its text and HTML alternatives. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** What a mail is about: its type and data, or a digest's items. */
export interface MailContent {
  type: LogType;
  data: Record<string, unknown>;
  items?: { type: string; data: Record<string, unknown> }[];
  unsubscribeUrl: string | null;
}

/**
 * A partner mail in the tenant's language (ru for `ru…` locales, else en) and branding, with the
 * tenant's subject and intro overrides (`{name}` is the partner's name). The HTML is rendered by
 * preact, which escapes every value; styles are inline attributes (mail clients drop `<style>`).
 */
export function renderMail(tenant: MailTenant, content: MailContent): RenderedMail {
  const locale = canonicalLocale(tenant.locale) ?? 'ru-RU';
  const t = MAIL_TEXTS[labelLanguage(locale)];
  const words = (data: Record<string, unknown>): MailWords => ({
    name: str(data.name),
    amount:
      typeof data.amount_kopecks === 'number'
        ? formatMoney(data.amount_kopecks, str(data.currency) || tenant.currency, locale)
        : '',
    lead: str(data.lead_name),
    member: str(data.member_name),
    bounty: str(data.bounty_name),
    reference: str(data.reference),
    reason: str(data.reason),
    program: tenant.displayName,
  });
  const w = words(content.data);
  const override = withMailDefaults(tenant.notifications).templates[content.type] ?? {};
  const fill = (s: string) => s.replaceAll('{name}', w.name);
  const own = content.type === 'digest' ? t.digest : t[content.type];
  const subject = oneLine(override.subject ? fill(override.subject) : own.subject(w));
  const intro = override.intro ? fill(override.intro) : own.intro(w);
  const lines = (content.items ?? []).map((item) =>
    content.type === 'digest' && item.type in t
      ? t[item.type as Exclude<LogType, 'digest'>].line(words(item.data))
      : '',
  );
  const unsubscribe = content.type === 'digest' ? t.unsubscribeDigest : t.unsubscribe;
  const text = [
    t.hello(w.name),
    '',
    intro,
    ...(lines.length ? ['', ...lines.map((l) => `- ${l}`)] : []),
    '',
    '--',
    t.footer(tenant.displayName),
    ...(content.unsubscribeUrl ? [`${unsubscribe}: ${content.unsubscribeUrl}`] : []),
    '',
  ].join('\n');
  const html =
    '<!DOCTYPE html>' +
    render(
      <MailHtml
        tenant={tenant}
        lang={labelLanguage(locale)}
        subject={subject}
        hello={t.hello(w.name)}
        intro={intro}
        lines={lines}
        footer={t.footer(tenant.displayName)}
        unsubscribe={
          content.unsubscribeUrl ? { url: content.unsubscribeUrl, label: unsubscribe } : null
        }
      />,
    );
  return { subject, text, html };
}

function MailHtml(props: {
  tenant: MailTenant;
  lang: string;
  subject: string;
  hello: string;
  intro: string;
  lines: string[];
  footer: string;
  unsubscribe: { url: string; label: string } | null;
}) {
  const branding = withBrandingDefaults(props.tenant.branding);
  const accent = branding.accent_color;
  return (
    <html lang={props.lang}>
      <head>
        <meta charSet="utf-8" />
        <title>{props.subject}</title>
      </head>
      <body style="margin:0;padding:0;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b">
        <table role="presentation" width="100%" cellPadding="0" cellSpacing="0">
          <tr>
            <td align="center" style="padding:24px">
              <table
                role="presentation"
                width="560"
                cellPadding="0"
                cellSpacing="0"
                style={`background:#ffffff;border-top:4px solid ${accent};border-radius:6px`}
              >
                <tr>
                  <td style="padding:24px">
                    {branding.logo_url ? (
                      <img
                        src={branding.logo_url}
                        alt={props.tenant.displayName}
                        height="40"
                        style="display:block;margin-bottom:16px;border:0"
                      />
                    ) : (
                      <p style={`margin:0 0 16px;font-weight:bold;color:${accent}`}>
                        {props.tenant.displayName}
                      </p>
                    )}
                    <p style="margin:0 0 12px;font-size:16px">{props.hello}</p>
                    <p style="margin:0 0 12px;font-size:16px;line-height:1.5">{props.intro}</p>
                    {props.lines.length > 0 && (
                      <ul style="margin:0 0 12px;padding-left:20px;line-height:1.6">
                        {props.lines.map((line) => (
                          <li>{line}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
                <tr>
                  <td style="padding:16px 24px;border-top:1px solid #e4e4e7;font-size:12px;color:#71717a">
                    <p style="margin:0 0 8px">{props.footer}</p>
                    {props.unsubscribe && (
                      <a href={props.unsubscribe.url} style={`color:${accent}`}>
                        {props.unsubscribe.label}
                      </a>
                    )}
                  </td>
                </tr>
              </table>
            </td>
          </tr>
        </table>
      </body>
    </html>
  );
}

const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';

/** A subject is a header: one line whatever a name holds. */
const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ').slice(0, 300);
