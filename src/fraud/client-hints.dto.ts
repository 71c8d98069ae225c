import { IsIP, IsString, Length } from 'class-validator';
import { Optional } from '../common/validation/optional';

/**
 * What the tenant saw of the person's browser (docs/fraud.md): the risk signals compare
 * addresses; the user agent is kept for the staff who review.
 */
export class ClientHintsDto {
  /** An IPv4 or IPv6 literal; anything else is 400. @example "203.0.113.7" */
  @Optional() @IsIP() ip?: string;

  /** @example "Mozilla/5.0 (X11; Linux x86_64)" */
  @Optional() @IsString() @Length(1, 512) user_agent?: string;
}
