import { Matches } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { PageQueryDto } from '../../common/http/pagination.dto';

export class ListAuditLogQueryDto extends PageQueryDto {
  /** Only entries of this action. @example "tenant_key.created" */
  @Optional() @Matches(/^[a-z_]+\.[a-z_]+$/) action?: string;
}
