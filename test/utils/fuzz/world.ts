/**
 * Two tenants with data for the fuzz battery: A is the one whose credentials every request
 * carries, B the one whose ids are thrown at A's routes and whose data must never come back.
 */
import type TestAgent from 'supertest/lib/agent';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { EmbedTokenService } from '../../../src/access/embed-token.service';
import type { TestApp } from '../create-test-app';

export interface World {
  slug: string;
  orgId: string;
  origin: string;
  key: string;
  keyId: string;
  spareKeyId: string;
  owner: string;
  spareTokenId: string;
  webhookSecret: string;
  referrer: { usr: string; mbr: string };
  member: { usr: string; mbr: string };
  spareMember: { usr: string; mbr: string };
  offerId: string;
  groupId: string;
  leadId: string;
  convertedLeadId: string;
  conversionId: string;
  bonusIds: string[];
  eventId: string;
  jwt: string;
  code: string;
  signedRef: string;
  /** Names, emails and secrets that are this tenant's alone. */
  markers: string[];
  tenantBody: Record<string, unknown>;
}

export async function buildWorld(t: TestApp, http: () => TestAgent, name: string): Promise<World> {
  const slug = `fz${name.toLowerCase()}-${randomBytes(4).toString('hex')}`;
  const origin = `https://${slug}.example`;
  const admin = { Authorization: `Bearer ${t.adminToken}` };
  const must = (res: Response, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  };
  const displayName = `Tenant ${name} Leakcheck Zebra`;
  const created = must(
    await http()
      .post('/admin/v1/tenants')
      .set(admin)
      .send({ slug, display_name: displayName, allowed_origins: [origin] }),
    201,
    'tenant',
  );
  const key = created.tenant_key as string;
  const { tenant_key: _key, ...tenantBody } = created;
  const base = `/admin/v1/tenants/${slug}`;
  const keys = must(await http().get(`${base}/keys`).set(admin), 200, 'keys');
  const keyId = keys.items[0].key_id as string;
  const spareKeyId = must(
    await http().post(`${base}/keys`).set(admin).send({ name: 'spare' }),
    201,
    'spare key',
  ).key_id as string;
  const owner = must(
    await http().post(`${base}/staff-tokens`).set(admin).send({ name: 'owner', role: 'owner' }),
    201,
    'owner token',
  ).token as string;
  const spareTokenId = must(
    await http().post(`${base}/staff-tokens`).set(admin).send({ name: 'spare', role: 'viewer' }),
    201,
    'spare token',
  ).token_id as string;
  const webhookSecret = must(
    await http()
      .put(`${base}/webhook`)
      .set(admin)
      .send({ url: 'https://127.0.0.1:9/hook', events: ['lead.created', 'bonus.pending'] }),
    200,
    'webhook',
  ).secret as string;
  const fed = { 'X-Service-Tenant-Key': key };
  const person = (n: string) => `${n} ${name}leakcheck`;
  const email = (n: string) => `${n.toLowerCase()}.${name.toLowerCase()}leakcheck@${slug}.example`;
  const upsert = async (n: string, extra: Record<string, unknown> = {}) => {
    const body = must(
      await http()
        .post('/federation/v1/users/upsert')
        .set(fed)
        .send({ external_id: `x-${n}`, full_name: person(n), email: email(n), ...extra }),
      200,
      'upsert',
    );
    return { usr: body.service_user_id as string, mbr: body.tenant_service_id as string };
  };
  const referrer = await upsert('Bertha');
  const member = await upsert('Boris', { referrer_user_id: referrer.usr });
  const spareMember = await upsert('Bella');
  const offerId = must(
    await http()
      .post(`${base}/offers`)
      .set(admin)
      .send({ name: person('Offer') }),
    201,
    'offer',
  ).offer_id as string;
  const groupId = must(
    await http()
      .post(`${base}/groups`)
      .set(admin)
      .send({ slug: 'fuzz-group', name: person('Group') }),
    201,
    'group',
  ).group_id as string;
  const lead = async () =>
    must(
      await http()
        .post('/federation/v1/leads')
        .set(fed)
        .send({
          referrer_user_id: member.usr,
          contact: { name: person('Lena'), email: email('Lena') },
          offer_id: offerId,
        }),
      200,
      'lead',
    ).lead_id as string;
  const leadId = await lead();
  const convertedLeadId = await lead();
  const conversion = must(
    await http().post('/federation/v1/conversions/register').set(fed).send({
      lead_id: convertedLeadId,
      amount_kopecks: 100_000,
      currency: 'RUB',
      external_order_id: 'order-1',
    }),
    200,
    'conversion',
  );
  const manual = must(
    await http()
      .post(`${base}/bonuses`)
      .set(admin)
      .send({ user_id: referrer.usr, amount_kopecks: 500, currency: 'RUB', reason: 'manual' }),
    201,
    'bonus',
  );
  const bonusIds = [
    ...(conversion.cascaded_bonuses as { bonus_id: string }[]).map((b) => b.bonus_id),
    manual.bonus_id as string,
  ];
  const events = must(await http().get(`${base}/webhook/events`).set(admin), 200, 'events');
  const jwt = t.app.get(EmbedTokenService).issue(created.org_id as string, referrer.mbr).token;
  const link = must(
    await http()
      .post(`/embed/v1/data/referral-link?tenant=${slug}`)
      .set({ Origin: origin, Authorization: `Bearer ${jwt}` })
      .send({ target_type: 'offer', target_id: 'spring-42', recommendation_text: person('Rec') }),
    200,
    'link',
  );
  return {
    slug,
    orgId: created.org_id as string,
    origin,
    key,
    keyId,
    spareKeyId,
    owner,
    spareTokenId,
    webhookSecret,
    referrer,
    member,
    spareMember,
    offerId,
    groupId,
    leadId,
    convertedLeadId,
    conversionId: conversion.conversion_id as string,
    bonusIds,
    eventId: events.items[0].event_id as string,
    jwt,
    code: link.code as string,
    signedRef: link.signed_ref as string,
    markers: [
      key,
      owner,
      webhookSecret,
      displayName,
      ...['Bertha', 'Boris', 'Bella', 'Lena', 'Offer', 'Rec'].map(person),
      ...['Bertha', 'Boris', 'Bella', 'Lena'].map(email),
    ],
    tenantBody,
  };
}

/** Tenant B's ids: what a client of A could send, and A's answers may only echo. */
export function idsOf(w: World): string[] {
  return [
    w.slug,
    w.orgId,
    w.keyId,
    w.spareKeyId,
    w.spareTokenId,
    w.referrer.usr,
    w.referrer.mbr,
    w.member.usr,
    w.member.mbr,
    w.offerId,
    w.groupId,
    w.leadId,
    w.convertedLeadId,
    w.conversionId,
    ...w.bonusIds,
    w.eventId,
    w.code,
    w.signedRef,
  ];
}

/** The same kind of id as `name` names, of world `w` (B's for the hostile values). */
export function idFor(w: World, name: string, path: string): string | undefined {
  const member = path.startsWith('/embed/') || path.includes('/users/{user_id}');
  switch (name) {
    case 'slug':
    case 'tenant':
    case 'client_id':
      return w.slug;
    case 'user_id':
      return member ? w.member.mbr : w.member.usr;
    case 'referrer_user_id':
      return w.referrer.usr;
    case 'lead_id':
      return path.includes('/status') ? w.leadId : w.convertedLeadId;
    case 'conversion_id':
      return w.conversionId;
    case 'bonus_id':
      // Approve and reject each get a pending bonus of their own.
      return path.endsWith('/reject') ? w.bonusIds[1] : w.bonusIds[0];
    case 'offer_id':
      return w.offerId;
    case 'group_id':
      return w.groupId;
    case 'event_id':
      return w.eventId;
    case 'key_id':
      return w.spareKeyId;
    case 'token_id':
      return w.spareTokenId;
    case 'code':
      return w.code;
    case 'ref':
    case 'signed_ref':
      return w.signedRef;
    default:
      return undefined;
  }
}
