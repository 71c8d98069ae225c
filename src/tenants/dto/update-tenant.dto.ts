import { OmitType, PartialType } from '@nestjs/swagger';
import { CreateTenantDto } from './create-tenant.dto';

/** Any field of the create body but `slug`; a given `program` replaces the whole program. */
export class UpdateTenantDto extends PartialType(OmitType(CreateTenantDto, ['slug'] as const), {
  skipNullProperties: false,
}) {}
