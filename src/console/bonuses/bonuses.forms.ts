import { Expose, Transform } from 'class-transformer';
import { IsIn, IsObject, IsString } from 'class-validator';
import { FormList } from '../../common/pages/form';
import { Optional } from '../../common/validation/optional';

/** A reason as the pages take it: trimmed, at most 500 characters; blank is none. */
function reasonText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 500) : undefined;
}

const Reason = () => Transform(({ value }) => reasonText(value));

/** Every bonus action: the queue's filters and page (a query string), kept by the redirect. */
export class BonusBackForm {
  @Optional()
  @IsString()
  back?: string;
}

/**
 * A rejection. The bonuses page posts its whole list whichever row's button is pressed, so the
 * row's reason arrives as `reason_<bonus_id>` (one field per pending row); a form of its own may
 * send `reason`.
 */
export class RejectBonusForm extends BonusBackForm {
  @Reason()
  @Optional()
  @IsString()
  reason?: string;

  @Expose()
  @Transform(({ obj }: { obj: Record<string, unknown> }) =>
    Object.fromEntries(
      Object.entries(obj)
        .filter(([name]) => name.startsWith('reason_'))
        .map(([name, value]) => [name.slice('reason_'.length), reasonText(value)])
        .filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  )
  @IsObject()
  reasons: Record<string, string>;

  /** The reason given for `bonusId`: its row's field, else `reason`. */
  reasonFor(bonusId: string): string | undefined {
    return this.reasons[bonusId] ?? this.reason;
  }
}

/** Approve or reject the ticked bonuses (`ids` repeats, one checkbox each). */
export class BulkBonusForm extends BonusBackForm {
  @FormList()
  @IsString({ each: true })
  ids: string[];

  @Optional()
  @IsIn(['approve', 'reject'])
  action?: 'approve' | 'reject';

  @Reason()
  @Optional()
  @IsString()
  bulk_reason?: string;
}
