import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/access/actor';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { type Program, type ProgramInput, withProgramDefaults } from '../tenants/program';
import { ProgramVersionsService } from '../tenants/program-versions.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import type { CreateOfferDto } from './dto/create-offer.dto';
import type { OfferListResponse, OfferResponse } from './dto/offer.response';
import type { OfferEntity } from './offer.entity';
import { OfferNotFoundError } from './offer.errors';
import { OffersRepository } from './offers.repository';

@Injectable()
export class OffersService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly offers: OffersRepository,
    private readonly audit: AuditService,
    private readonly versions: ProgramVersionsService,
  ) {}

  create(tenantId: string, dto: CreateOfferDto, actor: Actor): Promise<OfferResponse> {
    return this.tx.transaction(async () => {
      const offer: OfferEntity = {
        tenantId,
        id: newId('offer'),
        name: dto.name,
        url: dto.url ?? null,
        program: dto.program ? withProgramDefaults(dto.program) : null,
        createdAt: new Date(),
      };
      if (offer.program) {
        offer.programVersionId = await this.versions.record(
          tenantId,
          { type: 'offer', id: offer.id },
          offer.program,
          actor,
        );
      }
      await this.offers.insert(offer);
      await this.audit.record(
        tenantId,
        actor,
        'offer.created',
        { type: 'offer', id: offer.id },
        {
          name: offer.name,
        },
      );
      return toResponse(offer);
    });
  }

  /** Replaces the offer's own program (null: its leads are paid by the tenant's default). */
  setProgram(
    tenantId: string,
    offerId: string,
    program: ProgramInput | null,
    actor: Actor,
  ): Promise<OfferResponse> {
    return this.tx.transaction(async () => {
      const complete = program ? withProgramDefaults(program) : null;
      await this.get(tenantId, offerId);
      const version = await this.versions.record(
        tenantId,
        { type: 'offer', id: offerId },
        complete,
        actor,
      );
      await this.offers.setProgram(tenantId, offerId, complete, version);
      await this.audit.record(
        tenantId,
        actor,
        'offer.updated',
        { type: 'offer', id: offerId },
        { fields: ['program'] },
      );
      return toResponse(await this.get(tenantId, offerId));
    });
  }

  async list(tenantId: string): Promise<OfferListResponse> {
    return { items: (await this.offers.list(tenantId)).map(toResponse) };
  }

  /** The offer, or 404 `offer_not_found`. */
  async get(tenantId: string, offerId: string): Promise<OfferEntity> {
    const offer = await this.offers.find(tenantId, offerId);
    if (!offer) throw new OfferNotFoundError(offerId);
    return offer;
  }

  /** The offer's own program and its version, or null (it has none, or there is no such offer). */
  async ownProgram(
    tenantId: string,
    offerId: string,
  ): Promise<{ program: Program; versionId: string | null } | null> {
    const offer = await this.offers.find(tenantId, offerId);
    return offer?.program
      ? { program: offer.program, versionId: offer.programVersionId ?? null }
      : null;
  }

  /** The program that pays a lead: its offer's own, else the tenant's default (money.md §2). */
  async programFor(tenant: TenantEntity, offerId: string | null): Promise<Program> {
    if (!offerId) return tenant.program;
    const offer = await this.offers.find(tenant.id, offerId);
    return offer?.program ?? tenant.program;
  }
}

function toResponse(offer: OfferEntity): OfferResponse {
  return {
    offer_id: offer.id,
    name: offer.name,
    url: offer.url,
    program: offer.program,
    created_at: offer.createdAt.toISOString(),
  };
}
