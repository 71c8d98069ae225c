import { Body, Injectable, Param } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { WriteSurface } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ChangeLeadStatusDto } from './dto/lead-status.dto';
import { LeadResponse } from './dto/lead.response';
import { LeadsService } from './leads.service';

/**
 * A lead's status, moved by the tenant's back end (LeadsController) or by its staff
 * (LeadsAdminController), the same body on both surfaces. Staff moves are recorded in the audit log.
 */
export function LeadStatusWrites(surface: WriteSurface) {
  // Named, not `@surface.post(…)`: the OpenAPI plugin documents a route only under a named
  // decorator (docs/architecture.md, "One write, two surfaces").
  const SurfacePost = surface.post;

  // Injectable for its constructor's types: the controller extending it declares none.
  @Injectable()
  class LeadStatusWritesController {
    constructor(protected readonly leads: LeadsService) {}

    /** Moves a lead: new → processed, new → rejected, processed → rejected. */
    @SurfacePost(':lead_id/status', 'manager', [404, 'lead_not_found'], [409, 'invalid_transition'])
    changeStatus(
      @CurrentTenant() tenant: TenantEntity,
      @Param('lead_id') leadId: string,
      @Body() dto: ChangeLeadStatusDto,
      @CurrentActor() actor: Actor,
    ): Promise<LeadResponse> {
      return this.leads.changeStatus(tenant.id, leadId, dto, surface.auditActor(actor));
    }
  }
  return LeadStatusWritesController;
}
