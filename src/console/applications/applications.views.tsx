import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { Pager } from '../../pages/layout';
import { consolePage } from '../console-page';
import type { ConsoleCtx } from '../org-page';
import { APPLICATIONS_TEXTS } from './applications.i18n';

export interface QueueGroup {
  id: string;
  name: string;
  /** The group's questions: an answer's label. */
  labels: Record<string, string>;
}

export interface QueueItem {
  id: string;
  fullName: string;
  email: string;
  groupId: string;
  groupName: string;
  /** undefined: no recruiter; null: one without a name. */
  recruiter?: string | null;
  answers: Record<string, string>;
  createdAt: Date;
}

export interface ApplicationsModel {
  groups: QueueGroup[];
  groupId?: string;
  items: QueueItem[];
  total: number;
  page: number;
  totalPages: number;
  notice?: string;
  error?: string;
}

/**
 * The console's applications page (docs/console.md): the pending applications, newest first, with
 * their answers, and for managers a form to approve (into a group) or reject (with a reason).
 */
export function applicationsPage(ctx: ConsoleCtx, model: ApplicationsModel): HtmlPage {
  const a = APPLICATIONS_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}/applications`;
  const manager = ctx.can('manager');
  const notice =
    model.notice === 'approved' ? a.approved : model.notice === 'rejected' ? a.rejected : undefined;
  return consolePage(
    ctx,
    { title: a.title, area: 'applications', notice, error: model.error },
    <>
      <p class="muted">{a.intro}</p>
      <form method="get" action={base} class="filters">
        <label for="group-filter">{a.group}</label>
        <select id="group-filter" name="group_id">
          <option value="">{a.allGroups}</option>
          {model.groups.map((g) => (
            <option value={g.id} selected={g.id === model.groupId}>
              {g.name}
            </option>
          ))}
        </select>
        <button type="submit">{a.filter}</button>
      </form>
      <p class="muted" role="status">
        {a.waiting(model.total)}
      </p>
      {!model.items.length && <p class="muted">{a.empty}</p>}
      {model.items.map((item) => (
        <Application item={item} model={model} ctx={ctx} manager={manager} base={base} />
      ))}
      {model.totalPages > 1 && (
        <Pager
          ctx={ctx}
          base={base}
          params={{ group_id: model.groupId }}
          page={model.page}
          totalPages={model.totalPages}
        />
      )}
    </>,
  );
}

function Application(props: {
  item: QueueItem;
  model: ApplicationsModel;
  ctx: ConsoleCtx;
  manager: boolean;
  base: string;
}) {
  const { item, model, ctx, manager, base } = props;
  const a = APPLICATIONS_TEXTS[ctx.fmt.lang];
  const labels = model.groups.find((g) => g.id === item.groupId)?.labels ?? {};
  // In the order of the group's questions, then any of a question since removed.
  const order = Object.keys(labels);
  const answers = Object.entries(item.answers).sort(
    ([a], [b]) => rank(order, a) - rank(order, b) || a.localeCompare(b),
  );
  const heading = `app-${item.id}`;
  return (
    <section class="application" aria-labelledby={heading} data-application-id={item.id}>
      <h2 id={heading}>{item.fullName}</h2>
      <dl class="profile">
        <dt>{ctx.fmt.t.email}</dt>
        <dd>{item.email}</dd>
        <dt>{a.group}</dt>
        <dd>{item.groupName}</dd>
        <dt>{a.recruiter}</dt>
        <dd>{item.recruiter === undefined ? a.noRecruiter : (item.recruiter ?? a.unnamed)}</dd>
        <dt>{a.applied}</dt>
        <dd>{item.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC</dd>
      </dl>
      <h3>{a.answers}</h3>
      {answers.length ? (
        <dl class="answers">
          {answers.map(([name, value]) => (
            <>
              <dt>{labels[name] ?? name}</dt>
              <dd>{value}</dd>
            </>
          ))}
        </dl>
      ) : (
        <p class="muted">{a.noAnswers}</p>
      )}
      {manager && (
        <div class="actions">
          <form method="post" action={`${base}/${item.id}/approve`} class="row-form">
            <CsrfField value={ctx.csrf} />
            <label for={`group-${item.id}`}>{a.approveInto}</label>
            <select id={`group-${item.id}`} name="group_id">
              {model.groups.map((g) => (
                <option value={g.id} selected={g.id === item.groupId}>
                  {g.name}
                </option>
              ))}
            </select>
            <button type="submit" class="plain" data-action="approve">
              {a.approve}
            </button>
          </form>
          <form method="post" action={`${base}/${item.id}/reject`} class="row-form">
            <CsrfField value={ctx.csrf} />
            <label for={`reason-${item.id}`}>{a.reason}</label>
            <input id={`reason-${item.id}`} name="reason" required maxLength={500} />
            <button type="submit" data-action="reject">
              {a.reject}
            </button>
          </form>
        </div>
      )}
    </section>
  );
}

function rank(order: string[], name: string): number {
  const at = order.indexOf(name);
  return at < 0 ? order.length : at;
}
