import { page } from '../common/pages/layout';
import type { HtmlPage } from '../common/pages/page';
import type { TenantEntity } from '../tenants/tenant.entity';
import type { DeeplinkEntity } from './deeplink.entity';

/**
 * The landing page of a short link without a redirect (docs/embedding.md §4): the recommendation,
 * the promo code and a lead form that works without JavaScript (`form[data-form=lead]`, inputs
 * `name`,
 * `email`, `phone`). Shown again with the reason under the refusal's status.
 */
export function landingPage(
  tenant: TenantEntity,
  link: DeeplinkEntity,
  error?: string,
  status = 200,
): HtmlPage {
  return page(
    { status, title: tenant.displayName },
    <>
      <h1>{tenant.displayName}</h1>
      <p>{link.recommendationText || `A friend recommends ${tenant.displayName}.`}</p>
      {link.promoCode && (
        <p>
          Your promo code:{' '}
          <span class="promo" data-promo-code="">
            {link.promoCode}
          </span>
        </p>
      )}
      {error && <p class="error">{error}</p>}
      <form method="post" action={`/s/${link.code}/lead`} data-form="lead">
        <label for="name">Name</label>
        <input id="name" name="name" required maxLength={200} autocomplete="name" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" maxLength={254} autocomplete="email" />
        <label for="phone">Phone</label>
        <input id="phone" name="phone" type="tel" maxLength={32} autocomplete="tel" />
        <button type="submit" data-action="submit">
          Leave a request
        </button>
      </form>
    </>,
  );
}

export function thankYouPage(tenant: TenantEntity): HtmlPage {
  return page(
    { title: tenant.displayName },
    <>
      <h1>Thank you!</h1>
      <p>{tenant.displayName} will contact you soon.</p>
    </>,
  );
}

/** docs/fraud.md: a banned partner's link (`link_disabled`). */
export function linkDisabledPage(): HtmlPage {
  return page(
    { status: 410, title: 'Link disabled' },
    <>
      <h1>Link disabled</h1>
      <p class="muted" data-code="link_disabled">
        This referral link has been disabled by the program.
      </p>
    </>,
  );
}

export function linkNotFoundPage(): HtmlPage {
  return page(
    { status: 404, title: 'Link not found' },
    <>
      <h1>Link not found</h1>
      <p class="muted">This link does not exist or was mistyped.</p>
    </>,
  );
}
