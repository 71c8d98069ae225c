import { Pager, withParams, type Worded } from './layout';

/** What a list page shows of its pagination. */
interface Pagination {
  page: number;
  total: number;
  total_pages: number;
}

/**
 * The head of a list of the console (conversions, leads, partners): how many were found and the
 * CSV link with the same filters.
 */
export function ListSummary(props: {
  ctx: Worded;
  pagination: Pagination;
  csv: string;
  filters: Record<string, string | undefined>;
}) {
  const { t } = props.ctx.fmt;
  return (
    <>
      <p class="muted" data-total={String(props.pagination.total)}>
        {t.found(props.pagination.total)}
      </p>
      <p class="csv">
        <a href={withParams(props.csv, props.filters)} download>
          {t.csv}
        </a>
      </p>
    </>
  );
}

/** The pager under such a list, keeping its filters. */
export function ListPager(props: {
  ctx: Worded;
  base: string;
  filters: Record<string, string | undefined>;
  pagination: Pagination;
}) {
  return (
    <Pager
      ctx={props.ctx}
      base={props.base}
      params={props.filters}
      page={props.pagination.page}
      totalPages={props.pagination.total_pages}
    />
  );
}
