import { RECORD_TEXTS } from './records.i18n';
import type { Worded } from './console.i18n';

/**
 * The end of a filters form of records (these lists, the bonuses): partner id, a period of days
 * (each field's name and value), the submit button and the link that clears the filters.
 */
export function PartnerPeriodFields(props: {
  ctx: Worded;
  base: string;
  partnerLabel: string;
  userId?: string;
  from: [string, string | undefined];
  to: [string, string | undefined];
}) {
  const { t } = props.ctx.fmt;
  const r = RECORD_TEXTS[props.ctx.fmt.lang];
  return (
    <>
      <label>
        {props.partnerLabel}{' '}
        <input
          name="user_id"
          value={props.userId ?? ''}
          placeholder={r.partnerIdHint}
          maxLength={40}
          class="id"
        />
      </label>
      <label>
        {t.from} <input type="date" name={props.from[0]} value={props.from[1] ?? ''} />
      </label>
      <label>
        {t.to} <input type="date" name={props.to[0]} value={props.to[1] ?? ''} />
      </label>
      <button type="submit">{r.filter}</button>
      <a href={props.base}>{r.clearFilters}</a>
    </>
  );
}

/**
 * The filters of a list of records (conversions, leads): status, source (when given), partner
 * id, and a period of UTC days; a plain GET form, so it works without JavaScript.
 */
export function RecordFilters(props: {
  ctx: Worded;
  base: string;
  filters: { status?: string; source?: string; user_id?: string; from?: string; to?: string };
  statuses: [string, string][];
  sources?: [string, string][];
}) {
  const { t } = props.ctx.fmt;
  const r = RECORD_TEXTS[props.ctx.fmt.lang];
  const { filters } = props;
  return (
    <form method="get" action={props.base} class="search filters-form" role="search">
      <label>
        {t.status}{' '}
        <select name="status">
          <option value="">{r.allStatuses}</option>
          {props.statuses.map(([value, label]) => (
            <option value={value} selected={filters.status === value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {props.sources && (
        <label>
          {t.source}{' '}
          <select name="source">
            <option value="">{r.allSources}</option>
            {props.sources.map(([value, label]) => (
              <option value={value} selected={filters.source === value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      )}
      <PartnerPeriodFields
        ctx={props.ctx}
        base={props.base}
        partnerLabel={r.partnerId}
        userId={filters.user_id}
        from={['from', filters.from]}
        to={['to', filters.to]}
      />
    </form>
  );
}
