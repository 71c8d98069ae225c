import { EmbedTokenService } from '../../src/access/embed-token.service';
import type { TestApp } from '../utils/create-test-app';
import type { TestTenant } from './tenants.factory';
import type { UpsertedMember } from './users.factory';

export interface ReferralLink {
  short_url: string;
  signed_ref: string;
  deeplink_id: string;
  code: string;
  reused: boolean;
}

/** POST /embed/v1/data/referral-link as the member (the response, whatever its status). */
export function requestLink(
  t: TestApp,
  tenant: TestTenant,
  member: UpsertedMember,
  body: Record<string, unknown>,
) {
  const bearer = t.app.get(EmbedTokenService).issue(tenant.orgId, member.memberId).token;
  return t
    .http()
    .post(`/embed/v1/data/referral-link?tenant=${tenant.slug}`)
    .set('Origin', tenant.body.allowed_origins[0])
    .set('Authorization', `Bearer ${bearer}`)
    .send(body);
}

/** A website link of the member's, with optional promo code. */
export async function createLink(
  t: TestApp,
  tenant: TestTenant,
  member: UpsertedMember,
  body: Record<string, unknown> = {},
): Promise<ReferralLink> {
  const res = await requestLink(t, tenant, member, {
    target_type: 'website',
    target_id: `${tenant.body.allowed_origins[0]}/shop`,
    ...body,
  });
  if (res.status !== 200) throw new Error(`createLink: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as ReferralLink;
}

/** Follows the short link and answers the `ref` its redirect carries. */
export async function clickRef(t: TestApp, link: ReferralLink): Promise<string> {
  const res = await t.http().get(`/s/${link.code}`);
  if (res.status !== 302) throw new Error(`clickRef: ${res.status}`);
  return new URL(res.headers.location).searchParams.get('ref')!;
}

/** POST with the tenant key. */
export function federation(t: TestApp, tenant: TestTenant, path: string, body: unknown) {
  return t
    .http()
    .post(path)
    .set('X-Service-Tenant-Key', tenant.key)
    .send(body as object);
}
