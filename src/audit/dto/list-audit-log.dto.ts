import { IsOptional, Matches } from 'class-validator';
import { PageQueryDto } from '../../common/http/pagination.dto';

export class ListAuditLogQueryDto extends PageQueryDto {
  /** Only entries of this action. @example "tenant_key.created" */
  @IsOptional() @Matches(/^[a-z_]+\.[a-z_]+$/) action?: string;
}
