import { parseInstant } from '../../common/http/instant';
import type { ListBonusesQueryDto } from '../../bonuses/dto/bonus-requests.dto';
import type { ListPayoutsQueryDto } from '../../payouts/dto/payout-requests.dto';
import { Conditions } from './conditions';

/**
 * The page filters of the CSV links whose rows the transfer exports read (ExportsService), as
 * the conditions over the export's alias: `b` (bonuses), `p` (payouts). The conversions' and
 * leads' are their readers' (ConversionListReader, LeadListReader).
 */
export function bonusesExportFilter(dto: ListBonusesQueryDto): Conditions {
  return new Conditions()
    .add('b.status = ?', dto.status)
    .add(`b.review ->> 'status' = ?`, dto.review)
    .add('(b.service_user_id = ? OR b.member_id = ?)', dto.user_id)
    .add('b.created_at >= ?::timestamptz', parseInstant(dto.created_from)?.toISOString())
    .add('b.created_at < ?::timestamptz', parseInstant(dto.created_to)?.toISOString());
}

export function payoutsExportFilter(
  filters: Pick<ListPayoutsQueryDto, 'run_id' | 'status' | 'user_id'>,
): Conditions {
  return new Conditions()
    .add('p.run_id = ?', filters.run_id)
    .add('p.status = ?', filters.status)
    .add('(p.service_user_id = ? OR p.member_id = ?)', filters.user_id);
}
