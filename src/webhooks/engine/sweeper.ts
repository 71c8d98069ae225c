import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Admission } from './admission';
import { DeliveryJobs } from './delivery-jobs';
import { DeliveriesRepository } from './deliveries.repository';
import type { LaneItem } from './endpoint-lane';
import { EngineSettings } from './engine-settings';
import { Lanes } from './lanes';

/** Deliveries looked at per sweep, at most. */
const SWEEP_BATCH = 500;

/**
 * What Redis lost, found again in Postgres. Run on a timer by every worker (webhook.processor.ts)
 * rather than as a repeatable Bull job: it exists to recover from Redis losing jobs, so it must
 * not live in Redis itself. Several sweepers at once are harmless: job ids are per attempt and
 * the claim lets only one attempt be sent.
 */
@Injectable()
export class Sweeper {
  constructor(
    private readonly config: AppConfig,
    private readonly settings: EngineSettings,
    private readonly deliveries: DeliveriesRepository,
    private readonly lanes: Lanes,
    private readonly jobs: DeliveryJobs,
    private readonly admission: Admission,
  ) {}

  /**
   * Hands on overdue deliveries that are not in flight (what a Redis outage or a crash between
   * commit and enqueue left behind) and staff replays not made yet: as a job, unless one already
   * stands to run (job ids are per attempt, so nothing doubles). An endpoint with every slot leased
   * is being worked on, and another job would only join that work: the processes holding its slots
   * take its lost deliveries straight into their own lanes (skipping what a lane already has), and
   * others leave them to those holders' sweepers. So a lost job waits for its turn in the lane,
   * never for a pause in the endpoint's traffic. Answers how many were handed on.
   */
  async sweep(): Promise<number> {
    const overdue = await this.deliveries.overdue(
      Math.min(this.config.webhook.sweepMs, 5000),
      SWEEP_BATCH,
      this.config.webhook.endpointConcurrency,
      this.settings.holder,
    );
    const local = new Map<string, LaneItem[]>();
    let handedOn = 0;
    for (const d of overdue) {
      if (d.busy) {
        const lane = this.lanes.get(d.tenantId);
        if (!d.mine || !lane || lane.has(d.eventId, d.replay)) continue;
        const items = local.get(d.tenantId) ?? [];
        items.push({ eventId: d.eventId, replay: d.replay });
        local.set(d.tenantId, items);
        continue;
      }
      if (await this.jobs.sweptUp(d)) handedOn++;
    }
    for (const [tenantId, items] of local) {
      void this.admission.admit({ tenantId, eventId: items[0].eventId }, items);
      handedOn += items.length;
    }
    return handedOn;
  }
}
