import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { TransactionHost } from '../../database/transaction-host';
import { DEFAULT_MODES } from '../notification-preference.entity';
import {
  type MailRow,
  MailScanRepository,
  type Recipient,
  type ScannedEvent,
} from './mail-scan.repository';
import { MAILED_EVENT_TYPES, type MailSource, messageId, sourceOfEvent } from './mail-sources';

/** Sources read per tenant per pass. */
const BATCH = 500;

/**
 * Turns what committed changes wrote (outbox events; members who joined under a referrer) into
 * mails and digest items (docs/notifications.md, "How mail is made"). It runs in the worker after
 * the fact, so the write paths pay nothing for mail; a change rolled back left no event and so no
 * mail. Each source is read once per recipient and type (the unique keys), and re-reading the
 * overlap window (a long transaction commits an older event late) costs only a look-up.
 */
@Injectable()
export class MailScanner {
  private readonly host: string;

  constructor(
    private readonly tx: TransactionHost,
    private readonly repo: MailScanRepository,
    config: AppConfig,
  ) {
    this.host = new URL(config.publicBaseUrl).hostname;
  }

  /** One pass over every tenant; answers how many sources were read. */
  async scan(): Promise<number> {
    let read = 0;
    const events = await this.repo.events(MAILED_EVENT_TYPES, BATCH);
    for (const [tenantId, rows] of byTenant(events)) {
      await this.write(
        tenantId,
        'events',
        rows.map(toSource),
        rows.map((r) => r.id),
      );
      read += rows.length;
    }
    const joined = await this.repo.joined(BATCH);
    for (const [tenantId, rows] of byTenant(joined)) {
      const sources: MailSource[] = rows.map((m) => ({
        sourceId: m.id,
        type: 'downline.joined',
        memberId: m.referrerMemberId,
        occurredAt: m.createdAt,
        data: { member_name: m.fullName },
      }));
      await this.write(
        tenantId,
        'members',
        sources,
        rows.map((r) => r.id),
      );
      read += rows.length;
    }
    return read;
  }

  private async write(
    tenantId: string,
    stream: 'events' | 'members',
    given: (MailSource | undefined)[],
    read: string[],
  ): Promise<void> {
    const sources = given.filter((s): s is MailSource => !!s);
    const members = await this.repo.members(
      tenantId,
      sources.flatMap((s) => [s.userId ?? s.memberId ?? []].flat()),
    );
    const applicants = await this.repo.applicants(
      tenantId,
      sources.flatMap((s) => s.applicationId ?? []),
    );
    const recipients = sources.map((s) =>
      s.applicationId ? applicants.get(s.applicationId) : members.get(s.userId ?? s.memberId ?? ''),
    );
    const modes = await this.repo.modes(
      tenantId,
      recipients.flatMap((r) => r?.memberId ?? []),
    );
    const extra = await this.enrichment(tenantId, sources);
    const mails: MailRow[] = [];
    const items: MailRow[] = [];
    sources.forEach((source, i) => {
      const recipient = recipients[i];
      if (!recipient?.email) return;
      const mode = recipient.memberId
        ? (modes.get(`${recipient.memberId}|${source.type}`) ?? DEFAULT_MODES[source.type])
        : 'instant';
      if (mode === 'off') return;
      const row = this.row(source, recipient, extra(source));
      (mode === 'daily' && recipient.memberId ? items : mails).push(row);
    });
    await this.tx.transaction(() =>
      this.repo.write(tenantId, stream, {
        mails,
        items,
        read,
        scannedTo: new Date(Math.max(...given.map((s) => s?.occurredAt.getTime() ?? 0), 0)),
      }),
    );
  }

  /** Names the templates show that the event does not carry: the lead's, the bounty's. */
  private async enrichment(tenantId: string, sources: MailSource[]) {
    const leadSources = sources.flatMap((s) =>
      s.type === 'bonus.pending' ? [String(s.data.source_id)] : [],
    );
    const bountyIds = sources.flatMap((s) =>
      s.type === 'bounty.reached' ? [String(s.data.bounty_id)] : [],
    );
    const leads = await this.repo.leadNames(tenantId, leadSources);
    const bounties = await this.repo.bountyNames(tenantId, bountyIds);
    return (s: MailSource): Record<string, unknown> => {
      if (s.type === 'bonus.pending') return { lead_name: leads.get(String(s.data.source_id)) };
      if (s.type === 'bounty.reached')
        return { bounty_name: bounties.get(String(s.data.bounty_id)) };
      return {};
    };
  }

  private row(source: MailSource, to: Recipient, extra: Record<string, unknown>): MailRow {
    const recipient = to.memberId ?? source.applicationId!;
    return {
      id: newId('notification'),
      type: source.type,
      recipient,
      memberId: to.memberId,
      sourceId: source.sourceId,
      to: to.email!,
      messageId: messageId(this.host, source.sourceId, recipient, source.type),
      occurredAt: source.occurredAt,
      data: { ...source.data, ...extra, name: to.name },
    };
  }
}

function toSource(row: ScannedEvent): MailSource | undefined {
  return sourceOfEvent(row.body, row.occurredAt);
}

function byTenant<T extends { tenantId: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) out.set(row.tenantId, [...(out.get(row.tenantId) ?? []), row]);
  return out;
}
