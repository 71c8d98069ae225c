import { Injectable } from '@nestjs/common';
import { EndpointLane } from './endpoint-lane';
import { EngineSettings } from './engine-settings';

/**
 * This process's endpoint lanes, one per tenant with work here (endpoint-lane.ts), made on first
 * use and forgotten when idle (statement-loop.ts), and whether the process is stopping.
 */
@Injectable()
export class Lanes {
  private readonly byTenant = new Map<string, EndpointLane>();
  /** The process is stopping: no new work is taken, and what is not claimed is let go. */
  closing = false;

  constructor(private readonly settings: EngineSettings) {}

  get(tenantId: string): EndpointLane | undefined {
    return this.byTenant.get(tenantId);
  }

  /** The tenant's lane, made if there is none. */
  of(tenantId: string): EndpointLane {
    let lane = this.byTenant.get(tenantId);
    if (!lane) {
      lane = new EndpointLane(tenantId, this.settings.lane);
      this.byTenant.set(tenantId, lane);
    }
    return lane;
  }

  /** Whether this lane is still its tenant's (not forgotten since). */
  isCurrent(lane: EndpointLane): boolean {
    return this.byTenant.get(lane.tenantId) === lane;
  }

  forget(lane: EndpointLane): void {
    this.byTenant.delete(lane.tenantId);
  }

  all(): IterableIterator<EndpointLane> {
    return this.byTenant.values();
  }

  /** Deliveries admitted to this process's lanes and not answered yet. */
  get backlog(): number {
    let total = 0;
    for (const lane of this.byTenant.values()) total += lane.backlog;
    return total;
  }
}
