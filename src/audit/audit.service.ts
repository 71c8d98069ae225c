import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../common/access/actor';
import { offsetOf, PageQueryDto, pagination } from '../common/http/pagination.dto';
import { newId } from '../common/ids';
import { AuditRepository } from './audit.repository';
import { AuditEntryResponse, AuditLogResponse } from './dto/audit-entry.response';
import type { AuditEntryEntity } from './audit-entry.entity';

export interface AuditTarget {
  type: string;
  id: string;
}

/**
 * The tenant's audit log. `record` joins the caller's transaction, so an action and its entry
 * commit or roll back together.
 */
@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  async record(
    tenantId: string,
    actor: AuditActor,
    action: string,
    target: AuditTarget,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await this.audit.insert({
      tenantId,
      id: newId('audit'),
      at: new Date(),
      actorType: actor.type,
      actorName: actor.name,
      action,
      targetType: target.type,
      targetId: target.id,
      details,
    });
  }

  async list(
    tenantId: string,
    query: PageQueryDto & { action?: string },
  ): Promise<AuditLogResponse> {
    const [rows, total] = await this.audit.list(
      tenantId,
      { action: query.action },
      offsetOf(query),
      query.page_size,
    );
    return { items: rows.map(toResponse), pagination: pagination(query, total) };
  }
}

function toResponse(row: AuditEntryEntity): AuditEntryResponse {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { type: row.actorType, name: row.actorName },
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    details: row.details,
  };
}
