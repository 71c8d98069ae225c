import { RECORD_TEXTS } from './i18n-records';
import { type Worded, PartnerPeriodFields } from './layout';

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
