import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { TransactionHost } from '../../database/transaction-host';
import type { TenantEntity } from '../../tenants/tenant.entity';
import { withBrandingDefaults } from '../../tenants/mail-settings';
import { MailerService } from '../../mail/mailer.service';
import { newId } from '../../common/ids';
import { NotificationLogRepository, type NotificationRow } from './notification-log.repository';
import { renderMail } from './mail-render';
import { signUnsubscribe } from './unsubscribe-token';

/** Mails claimed per pass, and sent at once. */
const CLAIM = 50;
const PARALLEL = 8;

/**
 * Sends what the log has due (docs/notifications.md, "Delivery"): each mail is claimed for one
 * attempt (a lease of twice WEBHOOK_TIMEOUT_MS and a second, as webhook attempts), rendered,
 * handed to SMTP with its stable Message-ID, and its outcome written: `sent`; a retry on the
 * webhook schedule (WEBHOOK_RETRY_DELAYS_MS), then `failed`; or, on a permanent refusal (5xx),
 * `failed` and the address suppressed for the tenant. A worker killed after the SMTP server
 * accepted and before the outcome was written sends it again once the lease lapses: the same
 * Message-ID, so the copy is recognisable.
 */
@Injectable()
export class MailSender {
  private readonly logger = new Logger(MailSender.name);
  private readonly host: string;
  private readonly leaseMs: number;

  constructor(
    private readonly config: AppConfig,
    private readonly tx: TransactionHost,
    private readonly log: NotificationLogRepository,
    private readonly mailer: MailerService,
  ) {
    this.host = new URL(config.publicBaseUrl).hostname;
    // A webhook attempt's lock (webhooks/engine/engine-settings.ts): twice the timeout and a second.
    this.leaseMs = 2 * config.webhook.timeoutMs + 1000;
  }

  /** Digests whose hour has passed (or, `forced`, a tenant's every waiting item). */
  makeDigests(forced: { tenantId: string } | null = null): Promise<number> {
    return this.tx.transaction(() =>
      this.log.makeDigests(this.host, forced, () => newId('notification')),
    );
  }

  /** One pass: claims and sends what is due; answers how many were attempted. */
  async sendDue(): Promise<number> {
    const claimed = await this.log.claim(CLAIM, this.leaseMs);
    const tenants = new Map<string, Promise<TenantEntity | null>>();
    const tenant = (id: string) => {
      if (!tenants.has(id)) tenants.set(id, this.log.tenant(id));
      return tenants.get(id)!;
    };
    for (let i = 0; i < claimed.length; i += PARALLEL) {
      await Promise.all(
        claimed.slice(i, i + PARALLEL).map(async (row) => {
          const t = await tenant(row.tenant_id);
          if (t) await this.attempt(t, row);
        }),
      );
    }
    return claimed.length;
  }

  private async attempt(tenant: TenantEntity, row: NotificationRow): Promise<void> {
    if (await this.log.isSuppressed(row.tenant_id, row.to_address)) {
      return this.log.record(row, { status: 'suppressed', subject: null, error: null });
    }
    const items =
      row.type === 'digest' ? await this.log.digestItems(row.tenant_id, row.id) : undefined;
    const types = items ? [...new Set(items.map((i) => i.type))] : [row.type];
    const unsubscribeUrl = row.member_id
      ? `${this.config.publicBaseUrl}/notifications/unsubscribe?token=${signUnsubscribe(
          { t: row.tenant_id, m: row.member_id, k: types },
          this.config.jwtSecret,
        )}`
      : null;
    const data = items?.length ? { ...items[0].data, ...row.data } : row.data;
    const mail = renderMail(tenant, { type: row.type as never, data, items, unsubscribeUrl });
    const branding = withBrandingDefaults(tenant.branding);
    try {
      await this.mailer.deliver({
        from: {
          name: branding.from_name ?? tenant.displayName,
          address: senderAddress(this.config.mailFrom),
        },
        ...(branding.reply_to ? { replyTo: branding.reply_to } : {}),
        to: row.to_address,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: row.message_id,
        headers: unsubscribeUrl
          ? {
              'List-Unsubscribe': `<${unsubscribeUrl}>`,
              'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            }
          : {},
      });
    } catch (error) {
      return this.failed(row, mail.subject, error);
    }
    await this.log.record(row, { status: 'sent', subject: mail.subject, error: null });
  }

  private async failed(row: NotificationRow, subject: string, error: unknown): Promise<void> {
    const code = (error as { responseCode?: number }).responseCode;
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    if (code !== undefined && code >= 500) {
      await this.log.suppress(row.tenant_id, row.to_address, message);
      return this.log.record(row, { status: 'failed', subject, error: message });
    }
    const delays = this.config.webhook.retryDelaysMs;
    if (row.attempts <= delays.length) {
      const retryAt = new Date(Date.now() + delays[row.attempts - 1]);
      return this.log.record(row, { status: 'queued', subject, error: message, retryAt });
    }
    this.logger.warn(`Mail ${row.id} failed after ${row.attempts} attempts: ${message}`);
    await this.log.record(row, { status: 'failed', subject, error: message });
  }
}

/** The address of MAIL_FROM (`Name <addr>` or `addr`); the display name is the tenant's. */
function senderAddress(mailFrom: string): string {
  return /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom.trim();
}
