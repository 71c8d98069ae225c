import { Injectable, OnModuleInit } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/access/actor';
import { seal } from '../common/crypto/secret-box';
import { ConflictError } from '../common/errors/domain-error';
import { offsetOf, pagination } from '../common/http/pagination.dto';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import { TEST_EVENT_TYPE } from '../outbox/event-types';
import { EventsService, type OutboxRow } from '../outbox/events.service';
import type { ListWebhookEventsQueryDto, PutWebhookDto } from './dto/webhook.dto';
import type {
  WebhookDeliveryListResponse,
  WebhookEndpointResponse,
  WebhookEventDetailResponse,
  WebhookSecretResponse,
  WebhookTestResponse,
} from './dto/webhook.response';
import { DeliveryEngine } from './engine/delivery-engine';
import { DeliveryJobs } from './engine/delivery-jobs';
import { DeliveriesRepository } from './engine/deliveries.repository';
import { Replays } from './engine/replays';
import { isForbiddenAddress } from './ssrf';
import { newWebhookSecret } from './webhook-signature';
import type { WebhookAttemptEntity } from './webhook-attempt.entity';
import type { WebhookDeliveryEntity } from './webhook-delivery.entity';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import {
  EventNotFoundError,
  InsecureWebhookUrlError,
  WebhookNotConfiguredError,
  WebhookTargetForbiddenError,
} from './webhook.errors';

/** How long the previous secret keeps signing after a rotation (docs/webhooks.md). */
const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

/**
 * The tenant's endpoint configuration and the operator's view of deliveries; also the outbox
 * listener that turns each subscribed event into a delivery, in the event's own transaction, and
 * hands it to Bull once that transaction has committed.
 */
@Injectable()
export class WebhooksService implements OnModuleInit {
  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly engine: DeliveryEngine,
    private readonly jobs: DeliveryJobs,
    private readonly replays: Replays,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    this.events.onEmit((tenantId, rows) => this.createDeliveries(tenantId, rows));
  }

  async get(tenantId: string): Promise<WebhookEndpointResponse> {
    const endpoint = await this.endpoints.find(tenantId);
    if (!endpoint) throw new WebhookNotConfiguredError();
    return toEndpointResponse(endpoint);
  }

  /** Creates or replaces the endpoint; the secret is returned only when it is first created. */
  async put(tenantId: string, dto: PutWebhookDto, actor: Actor): Promise<WebhookEndpointResponse> {
    await this.assertAllowedUrl(dto.url);
    return this.tx.transaction(async () => {
      const existing = await this.endpoints.findForUpdate(tenantId);
      const now = new Date();
      const secret = existing ? undefined : newWebhookSecret();
      const endpoint: WebhookEndpointEntity = {
        ...(existing ?? {
          tenantId,
          secretSealed: seal(secret!, this.config.secretsEncryptionKey),
          previousSecretSealed: null,
          previousSecretExpiresAt: null,
          createdAt: now,
        }),
        url: dto.url,
        events: [...new Set(dto.events)],
        enabled: dto.enabled ?? true,
        updatedAt: now,
      };
      await this.endpoints.save(endpoint);
      // Idempotent: also gives slots to an endpoint saved by a version without them.
      await this.deliveries.createSlots(tenantId);
      await this.audit.record(
        tenantId,
        actor,
        existing ? 'webhook.updated' : 'webhook.created',
        {
          type: 'webhook',
          id: tenantId,
        },
        { url: endpoint.url, events: endpoint.events, enabled: endpoint.enabled },
      );
      return { ...toEndpointResponse(endpoint), ...(secret ? { secret } : {}) };
    });
  }

  /** A new secret from now on; the previous one keeps signing (as a second header) for 24 h. */
  rotateSecret(tenantId: string, actor: Actor): Promise<WebhookSecretResponse> {
    return this.tx.transaction(async () => {
      const endpoint = await this.endpoints.findForUpdate(tenantId);
      if (!endpoint) throw new WebhookNotConfiguredError();
      const secret = newWebhookSecret();
      endpoint.previousSecretSealed = endpoint.secretSealed;
      endpoint.previousSecretExpiresAt = new Date(Date.now() + PREVIOUS_SECRET_MS);
      endpoint.secretSealed = seal(secret, this.config.secretsEncryptionKey);
      endpoint.updatedAt = new Date();
      await this.endpoints.save(endpoint);
      await this.audit.record(tenantId, actor, 'webhook.secret_rotated', {
        type: 'webhook',
        id: tenantId,
      });
      return { secret };
    });
  }

  /** Sends one `webhook.test` event at once, whatever the subscription, and reports the answer. */
  async test(tenantId: string, actor: Actor): Promise<WebhookTestResponse> {
    const endpoint = await this.endpoints.find(tenantId);
    if (!endpoint) throw new WebhookNotConfiguredError();
    if (!endpoint.enabled)
      throw new ConflictError('The endpoint is disabled; enable it to send a test.');
    const [envelope] = await this.tx.transaction(async () => {
      const emitted = await this.events.emitMany(tenantId, [
        { type: TEST_EVENT_TYPE, payload: { message: 'Test event from the referral service' } },
      ]);
      await this.audit.record(tenantId, actor, 'webhook.tested', {
        type: 'event',
        id: emitted[0].event_id,
      });
      return emitted;
    });
    const result = await this.engine.attemptNow(tenantId, envelope.event_id);
    return {
      event_id: envelope.event_id,
      delivered: result?.ok ?? false,
      status_code: result?.statusCode ?? null,
    };
  }

  async listEvents(
    tenantId: string,
    query: ListWebhookEventsQueryDto,
  ): Promise<WebhookDeliveryListResponse> {
    const [rows, total] = await this.deliveries.list(
      tenantId,
      query.status,
      offsetOf(query),
      query.page_size,
    );
    return { items: rows.map(toDeliveryResponse), pagination: pagination(query, total) };
  }

  async eventDetail(tenantId: string, eventId: string): Promise<WebhookEventDetailResponse> {
    const delivery = await this.deliveries.find(tenantId, eventId);
    if (!delivery) throw new EventNotFoundError(eventId);
    const envelope = await this.events.get(tenantId, eventId);
    const attempts = await this.deliveries.attemptsOf(tenantId, eventId);
    const now = Date.now();
    return {
      event: envelope as unknown as Record<string, unknown>,
      status: delivery.status,
      attempts: attempts.map((a) => {
        const state = attemptState(a, delivery, now);
        return {
          attempt: a.attempt,
          at: a.at.toISOString(),
          state,
          status_code: a.statusCode,
          duration_ms: state === 'completed' ? a.durationMs : null,
          error: a.error,
          response_body: a.responseBody,
          replay: a.replay,
        };
      }),
    };
  }

  /** A staff replay: one fresh attempt, made by a worker (engine/replays.ts); the API says 202. */
  replay(tenantId: string, eventId: string, actor: Actor): Promise<void> {
    return this.replays.request(tenantId, eventId, actor);
  }

  /** Outbox listener: a delivery for each event the tenant's enabled endpoint subscribes to. */
  private async createDeliveries(tenantId: string, rows: OutboxRow[]): Promise<void> {
    const endpoint = await this.endpoints.find(tenantId);
    if (!endpoint?.enabled) return;
    const wanted = rows.filter(
      (row) => row.eventType !== TEST_EVENT_TYPE && endpoint.events.includes(row.eventType),
    );
    // The test event is attempted at once by `test()`, not queued; it gets a delivery row too.
    const test = rows.filter((row) => row.eventType === TEST_EVENT_TYPE);
    await this.deliveries.insertPending(
      tenantId,
      [...wanted, ...test].map((row) => ({ id: row.id, eventType: row.eventType })),
      new Date(),
    );
    if (wanted.length) {
      this.tx.afterCommit(() =>
        this.jobs.firstAttempts(
          tenantId,
          wanted.map((row) => row.id),
        ),
      );
    }
  }

  /** https only, and (unless private targets are allowed) a host resolving to public addresses. */
  private async assertAllowedUrl(url: string): Promise<void> {
    const target = new URL(url);
    if (target.protocol !== 'https:') throw new InsecureWebhookUrlError();
    if (this.config.webhook.allowPrivateTargets) return;
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host)
      ? [host]
      : await lookup(host, { all: true }).then(
          (found) => found.map((a) => a.address),
          () => [] as string[],
        );
    if (!addresses.length) throw new WebhookTargetForbiddenError(host, 'does not resolve');
    if (addresses.some(isForbiddenAddress)) throw new WebhookTargetForbiddenError(host);
  }
}

function toEndpointResponse(endpoint: WebhookEndpointEntity): WebhookEndpointResponse {
  return {
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.enabled,
    created_at: endpoint.createdAt.toISOString(),
  };
}

/**
 * An attempt's state in the log: `completed`, `in_flight` (its row was written before the request
 * and the delivery is still locked by this attempt), or `interrupted` (written in flight, but the
 * worker stopped before recording an outcome: the lock lapsed or a later attempt took over; the
 * request may or may not have reached the receiver).
 */
function attemptState(
  attempt: WebhookAttemptEntity,
  delivery: WebhookDeliveryEntity,
  now: number,
): 'completed' | 'in_flight' | 'interrupted' {
  if (attempt.state === 'completed') return 'completed';
  const locked = delivery.lockedUntil !== null && delivery.lockedUntil.getTime() > now;
  return locked && delivery.attempts === attempt.attempt ? 'in_flight' : 'interrupted';
}

function toDeliveryResponse(d: WebhookDeliveryEntity) {
  return {
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    last_status_code: d.lastStatusCode,
  };
}
