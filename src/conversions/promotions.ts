import { Injectable } from '@nestjs/common';
import type { PromoteTo } from '../groups/group.entity';
import { GroupsService } from '../groups/groups.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { PersonalSalesRepository } from './personal-sales.repository';

/** How many promotions one conversion may chain (a loop is refused when groups are saved). */
const MAX_STEPS = 20;

/**
 * docs/partners.md, "Promotion": after a conversion, its referrer moves to the group their group
 * promotes to once their own conversions (not reversed) in the window reach every threshold it
 * sets, and on from there while the next group's thresholds are met too. Counted from
 * `personal_sales_daily`, which already holds the conversion just registered; revenue in the
 * tenant's currency. Nobody is demoted.
 */
@Injectable()
export class Promotions {
  constructor(
    private readonly groups: GroupsService,
    private readonly sales: PersonalSalesRepository,
  ) {}

  async afterConversion(
    tenant: TenantEntity,
    memberId: string,
    promotion: PromoteTo | null,
    at: Date,
  ): Promise<void> {
    let current = promotion;
    for (let step = 0; current && step < MAX_STEPS; step++) {
      const { conversions, amountKopecks } = await this.sales.totals(
        tenant.id,
        memberId,
        tenant.currency,
        current.window_days,
        at,
      );
      const reached =
        (current.min_conversions === undefined || conversions >= current.min_conversions) &&
        (current.min_revenue_kopecks === undefined || amountKopecks >= current.min_revenue_kopecks);
      if (!reached) return;
      const moved = await this.groups.promote(tenant.id, memberId, current.group_id);
      if (!moved) return;
      current = moved.next;
    }
  }
}
