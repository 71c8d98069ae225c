import type { HtmlPage } from '../../common/pages/page';
import type { NotificationResponse } from '../../notifications/dto/notification-log.dto';
import { DataTable } from '../../pages/layout';
import { consolePage } from '../console-page';
import type { ConsoleCtx } from '../org-page';
import { MAIL_PAGE_TEXTS } from './notifications.i18n';

export interface MailPageModel {
  previews: { type: string; mail: { subject: string; text: string } }[];
  log: NotificationResponse[];
}

/**
 * The console's partner mail page (docs/notifications.md): a preview of each type (its subject
 * and text, with sample data, in the tenant's language, branding and overrides), and the newest
 * mails of the delivery log with their status and last error.
 */
export function mailPage(ctx: ConsoleCtx, model: MailPageModel): HtmlPage {
  const m = MAIL_PAGE_TEXTS[ctx.fmt.lang];
  return consolePage(
    ctx,
    { title: m.title, area: 'notifications' },
    <>
      <p class="muted">{m.intro}</p>
      <h2>{m.log}</h2>
      <DataTable
        caption={m.log}
        hideCaption
        empty={m.empty}
        headers={[m.when, m.type, m.to, m.subject, m.status, m.attempts, m.error]}
        numeric={[5]}
        rows={model.log.map((n) => [
          `${n.created_at.slice(0, 16).replace('T', ' ')} UTC`,
          n.type,
          n.to,
          n.subject ?? '—',
          m.statuses[n.status] ?? n.status,
          String(n.attempts),
          n.last_error ?? '',
        ])}
      />
      <h2>{m.previews}</h2>
      {model.previews.map(({ type, mail }) => (
        <section>
          <h3>{type}</h3>
          <p>
            <strong>{m.subject}:</strong> {mail.subject}
          </p>
          <pre class="mail-preview">{mail.text}</pre>
        </section>
      ))}
    </>,
  );
}
