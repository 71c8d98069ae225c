import { CsrfField } from '../../common/pages/components';
import { RECORD_TEXTS } from '../records.i18n';
import type { ConsoleCtx } from '../org-page';

/** A partner's ban, as their page shows it. */
export interface BanState {
  banned_at: string | null;
  ban_reason: string | null;
}

/**
 * The ban of a partner's page: for managers a disclosure with what a ban does, a reason and a
 * confirming button (a plain form post, so it works without JavaScript); once banned, since when
 * and why.
 */
export function BanSection(props: { ctx: ConsoleCtx; userId: string; ban: BanState }) {
  const { ctx, ban } = props;
  const r = RECORD_TEXTS[ctx.fmt.lang];
  if (ban.banned_at) {
    return (
      <>
        <p data-banned="true">
          <span class="badge off">{r.bannedBadge}</span>{' '}
          {r.bannedSince(ban.banned_at.slice(0, 16).replace('T', ' '), ban.ban_reason ?? '')}
        </p>
        {ctx.can('manager') && (
          <form
            method="post"
            action={`/org/${ctx.tenant.slug}/partners/${props.userId}/unban`}
            class="actions"
          >
            <CsrfField value={ctx.csrf} />
            <button type="submit" data-action="unban">
              {r.unban}
            </button>{' '}
            <span class="muted">{r.unbanExplained}</span>
          </form>
        )}
      </>
    );
  }
  if (!ctx.can('manager')) return null;
  return (
    <details class="ban">
      <summary data-action="open-ban">{r.ban}</summary>
      <p>{r.banExplained}</p>
      <form
        method="post"
        action={`/org/${ctx.tenant.slug}/partners/${props.userId}/ban`}
        class="actions"
      >
        <CsrfField value={ctx.csrf} />
        <label>
          {r.banReason} <input name="reason" required maxLength={500} />
        </label>
        <button type="submit" class="danger" data-action="ban">
          {r.confirmBan}
        </button>
      </form>
    </details>
  );
}
