import { Type } from 'class-transformer';
import { IsString, IsUrl, Length, MaxLength, ValidateNested } from 'class-validator';
import { Optional } from '../../common/validation/optional';
import { ProgramDto } from '../../tenants/dto/program.dto';

export class CreateOfferDto {
  /** @example "Premium plan" */
  @IsString() @Length(1, 200) name: string;

  /** @example "https://acme.example/premium" */
  @Optional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @MaxLength(2048)
  url?: string;

  /** The offer's own program; leads with this offer_id are paid by it. Omitted: the tenant's default. */
  @Optional() @ValidateNested() @Type(() => ProgramDto) program?: ProgramDto;
}
