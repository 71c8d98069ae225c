import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../common/access/actor';
import { offsetOf, type PageQueryDto, pagination } from '../common/http/pagination.dto';
import { newId } from '../common/ids';
import type { ProgramVersionListResponse } from './dto/program-version.response';
import type { Program } from './program';
import type { ProgramTargetType, ProgramVersionEntity } from './program-version.entity';
import { ProgramVersionsRepository } from './program-versions.repository';

/** Whose program changes: the tenant's default, or a group's or an offer's own. */
export type ProgramTarget = { type: 'default' } | { type: ProgramTargetType; id: string };

/**
 * docs/money.md §2, "Versions": every change of a program is written here as an immutable version,
 * in the transaction of the change, and its id stored beside the program it versions, which the
 * conversion that the program pays then records on each bonus.
 */
@Injectable()
export class ProgramVersionsService {
  constructor(private readonly versions: ProgramVersionsRepository) {}

  /**
   * Records `program` as the target's program from now on; answers the new `prv_…` (`id`, when
   * the holder was written first with it: a new tenant, which the version's row refers to).
   */
  async record(
    tenantId: string,
    target: ProgramTarget,
    program: Program | null,
    actor: AuditActor,
    id = newId('programVersion'),
  ): Promise<string> {
    await this.versions.insert({
      tenantId,
      id,
      targetType: target.type,
      targetId: 'id' in target ? target.id : null,
      program,
      effectiveAt: new Date(),
      actorType: actor.type,
      actorName: actor.name,
    });
    return id;
  }

  async list(tenantId: string, query: PageQueryDto): Promise<ProgramVersionListResponse> {
    const [rows, total] = await this.versions.list(tenantId, offsetOf(query), query.page_size);
    return { items: rows.map(toResponse), pagination: pagination(query, total) };
  }
}

function toResponse(version: ProgramVersionEntity) {
  return {
    program_version_id: version.id,
    target:
      version.targetType === 'default'
        ? ('default' as const)
        : version.targetType === 'group'
          ? { group_id: version.targetId! }
          : { offer_id: version.targetId! },
    program: version.program,
    effective_at: version.effectiveAt.toISOString(),
    actor: version.actorType ? { type: version.actorType, name: version.actorName ?? '' } : null,
  };
}
