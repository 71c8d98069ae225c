import { Injectable } from '@nestjs/common';
import { pagination } from '../../common/http/pagination.dto';
import { UserNotFoundError } from '../../users/user.errors';
import type { ListPartnersQueryDto } from './partners.dto';
import type { PartnerDetailResponse, PartnerListResponse } from './partners.response';
import { PartnersRepository } from './partners.repository';

/** The partners of the console and their API twins: the same data for the page and the JSON. */
@Injectable()
export class PartnersService {
  constructor(private readonly repo: PartnersRepository) {}

  async list(tenantId: string, query: ListPartnersQueryDto): Promise<PartnerListResponse> {
    const [items, total] = await this.repo.list(tenantId, query, query);
    return { items, pagination: pagination(query, total) };
  }

  /** One partner by `mbr_…` or `usr_…`; another tenant's id is 404 like a missing one. */
  async detail(tenantId: string, ref: string): Promise<PartnerDetailResponse> {
    const found = await this.repo.detail(tenantId, ref);
    if (!found) throw new UserNotFoundError(ref);
    return found;
  }

  csv(tenantId: string, query: Pick<ListPartnersQueryDto, 'q' | 'sort'>) {
    return this.repo.csv(tenantId, query);
  }
}
