import { Type } from 'class-transformer';
import { IsObject, ValidateIf, ValidateNested } from 'class-validator';
import { ProgramDto } from '../../tenants/dto/program.dto';

export class UpdateOfferDto {
  /**
   * The offer's own program (it replaces the whole program; omitted fields take the defaults), or
   * null: its leads are paid by the tenant's default program.
   */
  @ValidateIf((o: UpdateOfferDto) => o.program !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => ProgramDto)
  program: ProgramDto | null;
}
