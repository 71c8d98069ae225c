import { Injectable, Logger } from '@nestjs/common';
import { OpenedSecrets } from '../opened-secrets';
import { type AttemptError, type AttemptResult, WebhookSender } from '../webhook-sender';
import { deliveryHeaders } from '../webhook-signature';
import type { ClaimedAttempt, EndpointSnapshot } from './deliveries.types';

/** An attempt that failed before anything was sent. */
const failed = (error: AttemptError): AttemptResult => ({
  ok: false,
  statusCode: null,
  durationMs: 0,
  error,
  responseBody: null,
});

/**
 * One attempt on the wire: the stored bytes, signed with the endpoint's secrets as the claiming
 * statement read them (so a rotation applies from the next statement on in every process), sent
 * by WebhookSender. Its answer is always a result, never an exception.
 */
@Injectable()
export class AttemptSender {
  private readonly logger = new Logger(AttemptSender.name);

  constructor(
    private readonly secrets: OpenedSecrets,
    private readonly sender: WebhookSender,
  ) {}

  async send(
    endpoint: EndpointSnapshot | null,
    eventId: string,
    claim: ClaimedAttempt,
    at: number,
  ): Promise<AttemptResult> {
    try {
      return await this.request(endpoint, eventId, claim, at);
    } catch (error) {
      // A fault here (an unreadable stored secret, say) is a failed attempt like any other: it
      // follows the retry schedule and shows in the attempt log, and the process carries on.
      this.logger.error({ err: error }, `attempt of ${eventId} could not be made`);
      return failed('internal_error');
    }
  }

  /** Signs the stored bytes with the endpoint's secrets as they are now and sends them. */
  private async request(
    endpoint: EndpointSnapshot | null,
    eventId: string,
    claim: ClaimedAttempt,
    at: number,
  ): Promise<AttemptResult> {
    if (!endpoint || !endpoint.enabled) return failed('endpoint_disabled');
    const previous =
      endpoint.previousSecretSealed &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > at
        ? this.secrets.open(endpoint.previousSecretSealed)
        : undefined;
    // The stored bytes, encoded once: signed twice and sent as they are.
    const body = Buffer.from(claim.body, 'utf8');
    const headers = deliveryHeaders({
      body,
      eventId,
      eventType: claim.eventType,
      attempt: claim.attempt,
      secret: this.secrets.open(endpoint.secretSealed),
      previousSecret: previous,
      timestamp: Math.floor(at / 1000),
    });
    return this.sender.send(endpoint.url, body, headers);
  }
}
