import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { BacktestService } from '../../backtest/backtest.service';
import type { BacktestResponse, BacktestTarget } from '../../backtest/dto/backtest.dto';
import type { Program } from '../../tenants/program';
import type { TenantEntity } from '../../tenants/tenant.entity';

/** How long the program page keeps a backtest (SPEC 15: 10 minutes). */
const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 500;
const DAY_MS = 86_400_000;
/** The periods the program page shows. */
export const BACKTEST_PERIODS = [30, 90] as const;

/**
 * The program page's backtests of the last 30 and 90 days, kept in this process for 10 minutes per
 * tenant, target and draft, so reloading or previewing the same form again does not replay the
 * period again.
 */
@Injectable()
export class ProgramBacktests {
  private readonly cache = new Map<string, { at: number; value: Promise<BacktestResponse> }>();

  constructor(private readonly backtest: BacktestService) {}

  async of(
    tenant: TenantEntity,
    target: BacktestTarget,
    program: Program,
    now = Date.now(),
  ): Promise<{ days: number; result: BacktestResponse }[]> {
    const to = new Date(now).toISOString().slice(0, 10);
    return Promise.all(
      BACKTEST_PERIODS.map(async (days) => {
        const from = new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10);
        const key = createHash('sha256')
          .update(JSON.stringify([tenant.id, tenant.program, target, program, from, to]))
          .digest('base64url');
        const hit = this.cache.get(key);
        if (hit && now - hit.at < TTL_MS) return { days, result: await hit.value };
        const value = this.backtest.run(tenant, { target, program, from, to });
        this.cache.set(key, { at: now, value });
        value.catch(() => this.cache.delete(key));
        if (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
        return { days, result: await value };
      }),
    );
  }
}
