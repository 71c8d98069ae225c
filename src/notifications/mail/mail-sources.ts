import { createHash } from 'node:crypto';
import type { NotificationType } from '../notification-preference.entity';

/** The outbox events that mail someone, and `downline.joined` (read from `members`). */
export const MAILED_EVENT_TYPES = [
  'bonus.pending',
  'bonus.approved',
  'payout.paid',
  'partner.approved',
  'partner.rejected',
  'bounty.reached',
] as const satisfies readonly NotificationType[];

/** A digest's type in the delivery log. */
export const DIGEST_TYPE = 'digest';
export type LogType = NotificationType | typeof DIGEST_TYPE;

/**
 * One mail to be made: of this type, to this recipient (a member, or the application of a
 * rejected applicant), because of this source (an event id, or the member who joined).
 */
export interface MailSource {
  sourceId: string;
  type: NotificationType;
  /** The member's `usr_…` (resolved by the scanner), unless `memberId` is known already. */
  userId?: string;
  memberId?: string;
  applicationId?: string;
  occurredAt: Date;
  /** What the template shows, before the recipient's own fields are added. */
  data: Record<string, unknown>;
}

interface Envelope {
  event_type: string;
  event_id: string;
  payload: Record<string, unknown>;
}

/** The mail an outbox event asks for (one at most), from its stored body. */
export function sourceOfEvent(body: string, occurredAt: Date): MailSource | undefined {
  const { event_type: type, event_id: sourceId, payload } = JSON.parse(body) as Envelope;
  if (!(MAILED_EVENT_TYPES as readonly string[]).includes(type)) return undefined;
  const p = payload;
  const base = { sourceId, type: type as NotificationType, occurredAt };
  switch (type) {
    case 'bonus.pending':
      return {
        ...base,
        userId: p.user_id as string,
        data: {
          amount_kopecks: p.amount_kopecks,
          currency: p.currency,
          source_type: p.source_type,
          source_id: p.source_id,
        },
      };
    case 'bonus.approved':
      return { ...base, userId: p.user_id as string, data: { amount_kopecks: p.amount_kopecks } };
    case 'payout.paid':
      return {
        ...base,
        userId: p.user_id as string,
        data: { amount_kopecks: p.amount_kopecks, currency: p.currency, reference: p.reference },
      };
    case 'partner.approved':
      return { ...base, userId: p.user_id as string, data: {} };
    case 'partner.rejected':
      return {
        ...base,
        applicationId: p.application_id as string,
        data: { reason: p.reason },
      };
    case 'bounty.reached':
      return {
        ...base,
        userId: p.user_id as string,
        data: { bounty_id: p.bounty_id, value: p.value, threshold: p.threshold },
      };
    default:
      return undefined;
  }
}

/**
 * `Message-ID` of a mail: the same for every attempt and resend of one (source, recipient,
 * type), or one (recipient, digest period), so a copy sent twice after an unacknowledged accept
 * is recognisable as one mail.
 */
export function messageId(host: string, ...parts: string[]): string {
  const hash = createHash('sha256').update(parts.join('\n')).digest('hex');
  return `<ntf.${hash}@${host}>`;
}
