import { CsrfField } from '../../common/pages/components';
import type { ConsoleCtx } from '../org-page';
import { PRIVACY_TEXTS } from './privacy.i18n';

/** The confirmation every erasure form asks for: the word typed, a plain form post. */
function Confirm(props: { ctx: ConsoleCtx; action: string }) {
  const p = PRIVACY_TEXTS[props.ctx.fmt.lang];
  return (
    <>
      <label>
        {p.confirmLabel} <input name="confirm" required pattern="ERASE" autocomplete="off" />
      </label>
      <button type="submit" class="danger" data-action={props.action}>
        {p.confirmErase}
      </button>
    </>
  );
}

/**
 * A partner page's personal data (docs/privacy.md), for owners only: the export as a JSON file
 * and erasure behind a disclosure and a typed confirmation; once erased, since when.
 */
export function PartnerPrivacySection(props: {
  ctx: ConsoleCtx;
  userId: string;
  erasedAt: string | null;
}) {
  const { ctx } = props;
  const p = PRIVACY_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}/partners/${props.userId}`;
  if (props.erasedAt) {
    return (
      <p data-erased="true">
        <span class="badge off">{p.erasedBadge}</span>{' '}
        {p.erasedSince(props.erasedAt.slice(0, 16).replace('T', ' '))}
      </p>
    );
  }
  if (!ctx.can('owner')) return null;
  return (
    <details class="privacy">
      <summary data-action="open-privacy">{p.heading}</summary>
      <p>
        <a href={`${base}/personal-data.json`} data-action="personal-data">
          {p.download}
        </a>
      </p>
      <p>{p.eraseExplained}</p>
      <form method="post" action={`${base}/erase`} class="actions">
        <CsrfField value={ctx.csrf} />
        <Confirm ctx={ctx} action="erase" />
      </form>
    </details>
  );
}

/** The leads page's customer erasure (docs/privacy.md), for owners only. */
export function CustomerErasureSection(props: { ctx: ConsoleCtx }) {
  const { ctx } = props;
  if (!ctx.can('owner')) return null;
  const p = PRIVACY_TEXTS[ctx.fmt.lang];
  return (
    <details class="privacy">
      <summary data-action="open-customer-erasure">{p.customerHeading}</summary>
      <p>{p.customerExplained}</p>
      <form method="post" action={`/org/${ctx.tenant.slug}/leads/erase-customer`} class="actions">
        <CsrfField value={ctx.csrf} />
        <label>
          {p.email} <input name="email" type="email" maxLength={254} />
        </label>
        <label>
          {p.phone} <input name="phone" maxLength={64} />
        </label>
        <label>
          {p.externalId} <input name="external_id" maxLength={200} />
        </label>
        <Confirm ctx={ctx} action="erase-customer" />
      </form>
    </details>
  );
}
