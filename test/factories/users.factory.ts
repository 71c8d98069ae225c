import { randomBytes } from 'node:crypto';
import type { UpsertUserResponse } from '../../src/members/dto/upsert-user.response';
import { federationApi } from '../utils/api-client';
import type { TestApp } from '../utils/create-test-app';

export interface UpsertedMember {
  memberId: string;
  serviceUserId: string;
  externalId: string;
  body: UpsertUserResponse;
}

/** Upserts a user through the Federation API with the tenant's key. */
export async function upsertUser(
  t: TestApp,
  tenantKey: string,
  body: Record<string, unknown> = {},
): Promise<UpsertedMember> {
  const externalId = (body.external_id as string) ?? `ext-${randomBytes(5).toString('hex')}`;
  const res = await federationApi(t, tenantKey).upsertUser({ external_id: externalId, ...body });
  if (res.status !== 200) throw new Error(`upsertUser: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    memberId: res.body.tenant_service_id,
    serviceUserId: res.body.service_user_id,
    externalId,
    body: res.body,
  };
}

/** A referral chain of `length` members, each referred by the previous one; [root, …, deepest]. */
export async function createChain(
  t: TestApp,
  tenantKey: string,
  length: number,
): Promise<UpsertedMember[]> {
  const chain: UpsertedMember[] = [];
  for (let i = 0; i < length; i++) {
    chain.push(
      await upsertUser(t, tenantKey, {
        full_name: `Member ${i}`,
        ...(i > 0 ? { referrer_user_id: chain[i - 1].serviceUserId } : {}),
      }),
    );
  }
  return chain;
}
