import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit/audit.service';
import type { Actor } from '../../common/access/actor';
import { TransactionHost } from '../../database/transaction-host';
import { DeliveryStillPendingError, EventNotFoundError } from '../webhook.errors';
import type { DeliverJob } from '../webhook.queue';
import { Admission } from './admission';
import { DeliveryJobs } from './delivery-jobs';
import { DeliveriesRepository } from './deliveries.repository';

/**
 * Staff replays (docs/webhooks.md, section 9: one fresh attempt with the same event id and body):
 * the request, and the job that makes it. A replay request is a row (`replay_requested_at`), so
 * neither Redis nor a worker's death loses an acknowledged one: the sweeper finds it, and the claim
 * needs it, so a stale or duplicate replay job sends nothing. The recorded replay attempt clears
 * it.
 */
@Injectable()
export class Replays {
  constructor(
    private readonly tx: TransactionHost,
    private readonly deliveries: DeliveriesRepository,
    private readonly jobs: DeliveryJobs,
    private readonly admission: Admission,
    private readonly audit: AuditService,
  ) {}

  /**
   * Asks for one fresh attempt of a settled delivery; it runs in a worker (the API answers 202).
   * The request is written to Postgres with its audit entry before the 202 (the delivery's
   * `replay_requested_at`), so losing Redis never loses an acknowledged replay: the job is only
   * handed to Bull after the commit, best effort, and the sweeper finds the request if the job is
   * lost. A replay asked for again before it is made is the same replay.
   */
  async request(tenantId: string, eventId: string, actor: Actor): Promise<void> {
    await this.tx.transaction(async () => {
      const delivery = await this.deliveries.find(tenantId, eventId);
      if (!delivery) throw new EventNotFoundError(eventId);
      if (
        delivery.status === 'pending' ||
        !(await this.deliveries.requestReplay(tenantId, eventId))
      ) {
        throw new DeliveryStillPendingError(eventId);
      }
      await this.audit.record(tenantId, actor, 'webhook.replayed', { type: 'event', id: eventId });
      this.tx.afterCommit(() => this.jobs.replay(tenantId, eventId, delivery.attempts + 1));
    });
  }

  /**
   * A replay job: its deliveries go to their lane like any job's, but the job ends only once the
   * attempt is recorded (or handed on as another job), so a process that dies holding it leaves
   * the job stalled in Bull, which runs it again; the sweeper finds the replay request in Postgres
   * too, should Redis lose the job.
   */
  async run(job: DeliverJob): Promise<void> {
    const ids = job.eventIds?.length ? job.eventIds : [job.eventId];
    let left = ids.length;
    await new Promise<void>((resolve) => {
      const settle = () => --left === 0 && resolve();
      void this.admission.admit(
        job,
        ids.map((eventId) => ({ eventId, replay: true, settle })),
      );
    });
  }
}
