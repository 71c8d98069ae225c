import { Injectable } from '@nestjs/common';
import { MembersService } from '../members/members.service';
import type { ProgramTier } from '../tenants/program';
import { type CascadeShare, type ChainMember, cascadeWalk, MAX_COMPRESSION_WALK } from './cascade';
import { PersonalSalesRepository } from './personal-sales.repository';

/**
 * The cascade of a program whose tiers ask for qualification or compress (docs/money.md §2): the
 * personal sales of the chain's members are read once per conversion (PersonalSalesRepository,
 * one statement), and a compressing walk that runs past the chain it was given fetches the next
 * stretch of it (twice as long each time), so a conversion reads only as far up as its tiers find
 * takers.
 */
@Injectable()
export class QualifiedCascade {
  constructor(
    private readonly members: MembersService,
    private readonly sales: PersonalSalesRepository,
  ) {}

  /**
   * `chain` is the upline as far as the program's tiers reach (`complete`: the network ends
   * within it); `at` the conversion's time, whose UTC day closes every window.
   */
  async shares(
    tenantId: string,
    currency: string,
    amountKopecks: number,
    tiers: readonly ProgramTier[],
    chain: readonly ChainMember[],
    options: { compression: boolean; complete: boolean; at: Date },
  ): Promise<CascadeShare[]> {
    const windows = [...new Set(tiers.flatMap((t) => (t.qualify ? [t.qualify.window_days] : [])))];
    const sales = new Map<string, Map<number, number>>();
    const read = async (members: readonly ChainMember[]) => {
      const found = await this.sales.sums(
        tenantId,
        currency,
        members.map((m) => m.id),
        windows,
        options.at,
      );
      for (const [id, sums] of found) sales.set(id, sums);
    };
    const rules = {
      compression: options.compression,
      personalSales: (memberId: string, days: number) => sales.get(memberId)?.get(days) ?? 0,
    };
    let members = [...chain];
    let complete = options.complete;
    await read(members);
    let walk = cascadeWalk(amountKopecks, tiers, members, rules);
    while (walk.ranOut && !complete && members.length < MAX_COMPRESSION_WALK + 1) {
      const stretch = Math.min(
        Math.max(members.length, 8),
        MAX_COMPRESSION_WALK + 1 - members.length,
      );
      // The last member again, then `stretch` above it.
      const above = (await this.members.upline(tenantId, members.at(-1)!.id, stretch + 1)).slice(1);
      complete = above.length < stretch;
      members = members.concat(above);
      await read(above);
      walk = cascadeWalk(amountKopecks, tiers, members, rules);
    }
    return walk.shares;
  }
}
