import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { startRepeatableJob } from '../redis/repeatable-job';
import { TenantsService } from '../tenants/tenants.service';
import { scheduleDue, withPayoutDefaults } from '../tenants/payout-settings';
import { PAYOUTS_QUEUE, SCHEDULED_RUNS_CRON, SCHEDULED_RUNS_JOB } from './payouts.queue';
import { PayoutsRepository } from './payouts.repository';
import { PayoutsService } from './payouts.service';

/**
 * The tenants' payout schedules in the worker role: one repeatable Bull job at 00:00 UTC (Bull
 * de-duplicates it across workers) runs every tenant whose `weekly:`/`monthly:` day it is. The
 * run's `schedule_key` (the UTC date) makes that day's run happen once even if the job fires
 * twice or two workers take it.
 */
@Injectable()
export class PayoutScheduleWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger(PayoutScheduleWorker.name);

  constructor(
    @InjectQueue(PAYOUTS_QUEUE) private readonly queue: Queue,
    private readonly payouts: PayoutsService,
    private readonly repository: PayoutsRepository,
    private readonly tenants: TenantsService,
  ) {}

  onApplicationBootstrap(): void {
    startRepeatableJob(this.queue, this.logger, {
      queueLabel: 'Payouts',
      job: SCHEDULED_RUNS_JOB,
      handle: async () => ({ runs: await this.runDue(new Date()) }),
      schedule: () =>
        this.queue.add(
          SCHEDULED_RUNS_JOB,
          {},
          {
            repeat: { cron: SCHEDULED_RUNS_CRON, tz: 'UTC' },
            removeOnComplete: true,
            removeOnFail: 100,
          },
        ),
      stopped: 'Payout schedule stopped',
      unscheduled: 'Could not schedule the payout runs',
    });
  }

  /** Runs every tenant whose schedule falls on the UTC day of `at`; answers how many ran. */
  async runDue(at: Date): Promise<number> {
    const day = at.toISOString().slice(0, 10);
    let runs = 0;
    for (const { id, payouts } of await this.repository.scheduledTenants()) {
      if (!scheduleDue(withPayoutDefaults(payouts).schedule, at)) continue;
      const tenant = await this.tenants.tenantById(id);
      if (!tenant) continue;
      try {
        const run = await this.payouts.run(tenant, { type: 'system', name: 'schedule' }, day);
        if (run) runs++;
      } catch (error) {
        this.logger.error({ err: error, tenant: id }, 'Scheduled payout run failed');
      }
    }
    return runs;
  }
}
