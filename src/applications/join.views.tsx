import { CsrfField } from '../common/pages/components';
import type { HtmlPage } from '../common/pages/page';
import type { SignupField } from '../groups/group.entity';
import { TextField } from '../pages/forms';
import { type FrameLang, framedPage, type PageFrame } from '../pages/layout';
import type { JoinTexts } from './join.i18n';

/** A join or confirmation page's context: the frame (no one signed in) in the page's language. */
export type JoinCtx = PageFrame & FrameLang<JoinTexts> & { slug: string };

/** What the application form shows: the group's own questions, what was sent, what is wrong. */
export interface JoinFormModel {
  action: string;
  groupName: string;
  fields: readonly SignupField[];
  values: { full_name?: string; email?: string; ref?: string; answers: Record<string, string> };
  /** Worded errors by form field (`full_name`, `email`, `answers.<name>`). */
  errors: Record<string, string>;
  /** The recruiting partner of a valid `ref`: their name, or null for one without a name. */
  recruiter?: string | null;
  error?: string;
  status?: number;
}

const page = (ctx: JoinCtx, title: string, body: preact.ComponentChildren, status?: number) =>
  framedPage(ctx, { title, nav: [], status }, <div class="narrow">{body}</div>);

/** The application form (docs/partners.md, "Applications"): a plain form, no script. */
export function joinPage(ctx: JoinCtx, model: JoinFormModel): HtmlPage {
  const { t } = ctx.fmt;
  const { values, errors } = model;
  return framedPage(
    ctx,
    {
      title: t.joinTitle,
      nav: [],
      status: model.status,
      error: model.error,
    },
    <div class="narrow">
      <p>{t.joinIntro(ctx.tenant.displayName, model.groupName)}</p>
      {model.recruiter !== undefined && (
        <p class="muted">
          {model.recruiter === null ? t.recommended : t.recommendedBy(model.recruiter)}
        </p>
      )}
      <form method="post" action={model.action} data-form="application" novalidate>
        <CsrfField value={ctx.csrf} />
        {values.ref && <input type="hidden" name="ref" value={values.ref} />}
        <TextField
          id="full_name"
          name="full_name"
          label={t.fullName}
          value={values.full_name}
          error={errors.full_name}
          autocomplete="name"
          maxLength={200}
        />
        <TextField
          id="email"
          name="email"
          type="email"
          label={t.email}
          value={values.email}
          error={errors.email}
          autocomplete="email"
          maxLength={254}
        />
        {model.fields.map((field) => (
          <Question
            field={field}
            value={values.answers[field.name]}
            error={errors[`answers.${field.name}`]}
            t={t}
          />
        ))}
        <button type="submit" data-action="submit">
          {t.apply}
        </button>
      </form>
    </div>,
  );
}

/** One of the group's questions as a labelled control, with its error. */
function Question(props: { field: SignupField; value?: string; error?: string; t: JoinTexts }) {
  const { field, value, error, t } = props;
  const id = `q-${field.name}`;
  const errorId = `${id}-error`;
  const common = {
    id,
    name: `answers.${field.name}`,
    required: field.required,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': error ? errorId : undefined,
  };
  return (
    <p>
      <label for={id}>
        {field.label}
        {!field.required && <span class="muted"> {t.optional}</span>}
      </label>
      {field.type === 'textarea' ? (
        <textarea {...common} maxLength={4000}>
          {value ?? ''}
        </textarea>
      ) : field.type === 'select' ? (
        <select {...common}>
          <option value="">{t.choose}</option>
          {(field.options ?? []).map((option) => (
            <option value={option} selected={option === value}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={field.type === 'url' ? 'url' : 'text'}
          inputMode={field.type === 'url' ? 'url' : undefined}
          autocomplete={field.type === 'url' ? 'url' : 'off'}
          value={value ?? ''}
          maxLength={500}
        />
      )}
      {error && (
        <span id={errorId} class="error">
          {error}
        </span>
      )}
    </p>
  );
}

/** After a submission: the same page whether or not the address is a partner already. */
export function sentPage(ctx: JoinCtx): HtmlPage {
  const { t } = ctx.fmt;
  return page(ctx, t.sentTitle, <p role="status">{t.sentText}</p>);
}

export interface ConfirmModel {
  fullName: string;
  groupName: string;
  recruiter: string | null;
  hasRecruiter: boolean;
  token: string;
}

/**
 * What is being confirmed, and the one button that confirms it (a form post: a mail scanner that
 * follows the link confirms nothing).
 */
export function confirmPage(ctx: JoinCtx, model: ConfirmModel, error?: string): HtmlPage {
  const { t } = ctx.fmt;
  return page(
    ctx,
    t.confirmTitle,
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p>{t.confirmIntro}</p>
      <dl class="profile" data-application="summary">
        <dt>{t.name}</dt>
        <dd data-field="full_name">{model.fullName}</dd>
        <dt>{t.group}</dt>
        <dd data-field="group">{model.groupName}</dd>
        <dt>{t.recruiter}</dt>
        <dd data-field="recruiter">
          {model.hasRecruiter ? (model.recruiter ?? t.unnamedPartner) : t.noRecruiter}
        </dd>
      </dl>
      <form method="post" action={`/p/${ctx.slug}/join/confirm`}>
        <CsrfField value={ctx.csrf} />
        <input type="hidden" name="token" value={model.token} />
        <button type="submit" data-action="submit">
          {t.confirm}
        </button>
      </form>
    </>,
    error ? 403 : undefined,
  );
}

export function confirmedPage(ctx: JoinCtx, approved: boolean): HtmlPage {
  const { t } = ctx.fmt;
  return page(
    ctx,
    t.confirmedTitle,
    <>
      <p role="status">{approved ? t.confirmedApproved : t.confirmedPending}</p>
      {approved && (
        <p>
          <a href={`/p/${ctx.slug}`}>{t.portal}</a>
        </p>
      )}
    </>,
  );
}

/** A confirmation link that is unknown, used or expired (or a stale confirmation form). */
export function invalidLinkPage(ctx: JoinCtx, status = 404): HtmlPage {
  const { t } = ctx.fmt;
  return page(ctx, t.invalidTitle, <p class="error">{t.invalidText}</p>, status);
}

/** A group that takes no applications, or none of that slug: the same page. */
export function closedPage(ctx: JoinCtx): HtmlPage {
  const { t } = ctx.fmt;
  return page(ctx, t.closedTitle, <p>{t.closedText}</p>, 404);
}
