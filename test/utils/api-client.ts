/**
 * A typed client for the three APIs a test talks to: each call carries its API's credential
 * header, sends the request DTO the service validates and types the answer's body with the
 * response DTO the OpenAPI document describes. Answers are supertest responses: a test reads
 * `status`, `headers` and `body`, and asserts the status itself (refusals are answers too).
 *
 * `raw` sends anything (hostile input, another tenant's ids) with the same credential.
 */
import type { Response } from 'supertest';
import type { Test } from 'supertest';
import type { ProblemResponse } from '../../src/common/errors/problem.response';
import type { ListAuditLogQueryDto } from '../../src/audit/dto/list-audit-log.dto';
import type { AuditLogResponse } from '../../src/audit/dto/audit-entry.response';
import type {
  CreateManualBonusDto,
  ListBonusesQueryDto,
  RejectBonusDto,
} from '../../src/bonuses/dto/bonus-requests.dto';
import type { BonusListResponse, BonusResponse } from '../../src/bonuses/dto/bonus.response';
import type {
  PreviewConversionDto,
  RegisterConversionDto,
  ReverseConversionDto,
} from '../../src/conversions/dto/conversion-requests.dto';
import type {
  ConversionPreviewResponse,
  ConversionResponse,
  ReversalResponse,
} from '../../src/conversions/dto/conversion.response';
import type { CreateReferralLinkDto } from '../../src/deeplinks/dto/referral-link.dto';
import type { ReferralLinkResponse } from '../../src/deeplinks/dto/referral-link.dto';
import type {
  EmbedBonusesResponse,
  EmbedCabinetResponse,
  EmbedLeadsResponse,
  EmbedPartnersResponse,
  EmbedTreeResponse,
} from '../../src/embed/dto/embed.response';
import type { CreateLeadDto } from '../../src/leads/dto/create-lead.dto';
import type { ChangeLeadStatusDto } from '../../src/leads/dto/lead-status.dto';
import type { LeadCreatedResponse, LeadResponse } from '../../src/leads/dto/lead.response';
import type { CreateOfferDto } from '../../src/offers/dto/create-offer.dto';
import type { OfferListResponse, OfferResponse } from '../../src/offers/dto/offer.response';
import type { CreateStaffTokenDto } from '../../src/tenants/dto/staff-token.dto';
import type {
  CreatedStaffTokenResponse,
  StaffTokenListResponse,
} from '../../src/tenants/dto/staff-token.dto';
import type { CreateTenantDto } from '../../src/tenants/dto/create-tenant.dto';
import type {
  CreatedTenantKeyResponse,
  CreateTenantKeyDto,
  TenantKeyListResponse,
} from '../../src/tenants/dto/tenant-key.dto';
import type { CreatedTenantResponse, TenantResponse } from '../../src/tenants/dto/tenant.response';
import type { UpdateTenantDto } from '../../src/tenants/dto/update-tenant.dto';
import type { ListWebhookEventsQueryDto, PutWebhookDto } from '../../src/webhooks/dto/webhook.dto';
import type {
  WebhookDeliveryListResponse,
  WebhookEndpointResponse,
  WebhookEventDetailResponse,
  WebhookSecretResponse,
  WebhookTestResponse,
} from '../../src/webhooks/dto/webhook.response';
import type { UpsertUserDto } from '../../src/members/dto/upsert-user.dto';
import type { UpsertUserResponse } from '../../src/members/dto/upsert-user.response';
import type { MemberStatusResponse } from '../../src/members/dto/member-status.response';
import type { TestApp } from './create-test-app';

/** A refusal's problem document (README.md, "Errors"): its fields a test reads besides `status`. */
type Refusal = Partial<Pick<ProblemResponse, 'code' | 'detail' | 'errors'>>;

/**
 * A supertest response whose body is typed; a refusal's body is a problem document instead, so
 * its `code`, `detail` and `errors` may be read too.
 */
export type ApiResponse<T> = Omit<Response, 'body'> & { body: T & Refusal };

/** A DTO as it travels: plain JSON fields, nested DTOs as plain objects. */
export type Body<T> = { [K in keyof T]?: T[K] extends object ? Body<T[K]> | T[K] : T[K] };

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Headers = Record<string, string>;

interface Caller {
  /** Any request with the API's credential; `body` is sent as JSON when given. */
  raw(method: Method, path: string, body?: unknown, headers?: Headers): Test;
}

function caller(t: TestApp, credential: Headers): Caller {
  return {
    raw(method, path, body, headers = {}) {
      const req = t.http()[method](path).set(credential).set(headers);
      return body === undefined ? req : req.send(body as object);
    },
  };
}

function typed<T>(req: Test): Promise<ApiResponse<T>> {
  return req.then((res) => res as ApiResponse<T>);
}

const query = (q: object = {}) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
};

/** The Federation API with a tenant key (`X-Service-Tenant-Key`). */
export function federationApi(t: TestApp, tenantKey: string, headers: Headers = {}) {
  const c = caller(t, { 'X-Service-Tenant-Key': tenantKey, ...headers });
  return {
    raw: c.raw,
    upsertUser: (body: Body<UpsertUserDto>, h?: Headers) =>
      typed<UpsertUserResponse>(c.raw('post', '/federation/v1/users/upsert', body, h)),
    createLead: (body: Body<CreateLeadDto>, h?: Headers) =>
      typed<LeadCreatedResponse>(c.raw('post', '/federation/v1/leads', body, h)),
    setLeadStatus: (leadId: string, body: Body<ChangeLeadStatusDto>, h?: Headers) =>
      typed<LeadResponse>(c.raw('post', `/federation/v1/leads/${leadId}/status`, body, h)),
    registerConversion: (body: Body<RegisterConversionDto>, h?: Headers) =>
      typed<ConversionResponse>(c.raw('post', '/federation/v1/conversions/register', body, h)),
    previewConversion: (body: Body<PreviewConversionDto>) =>
      typed<ConversionPreviewResponse>(c.raw('post', '/federation/v1/conversions/preview', body)),
    reverseConversion: (conversionId: string, body: Body<ReverseConversionDto>, h?: Headers) =>
      typed<ReversalResponse>(
        c.raw('post', `/federation/v1/conversions/${conversionId}/reverse`, body, h),
      ),
  };
}

/** The Admin API with a platform admin token or a staff token (`Authorization: Bearer`). */
export function adminApi(t: TestApp, token: string) {
  const c = caller(t, { Authorization: `Bearer ${token}` });
  const tenant = (slug: string) => `/admin/v1/tenants/${slug}`;
  return {
    raw: c.raw,
    createTenant: (body: Body<CreateTenantDto>) =>
      typed<CreatedTenantResponse>(c.raw('post', '/admin/v1/tenants', body)),
    getTenant: (slug: string) => typed<TenantResponse>(c.raw('get', tenant(slug))),
    updateTenant: (slug: string, body: Body<UpdateTenantDto>) =>
      typed<TenantResponse>(c.raw('patch', tenant(slug), body)),
    createTenantKey: (slug: string, body: Body<CreateTenantKeyDto> = {}) =>
      typed<CreatedTenantKeyResponse>(c.raw('post', `${tenant(slug)}/keys`, body)),
    listTenantKeys: (slug: string) =>
      typed<TenantKeyListResponse>(c.raw('get', `${tenant(slug)}/keys`)),
    revokeTenantKey: (slug: string, keyId: string) =>
      typed<void>(c.raw('delete', `${tenant(slug)}/keys/${keyId}`)),
    createStaffToken: (slug: string, body: Body<CreateStaffTokenDto>) =>
      typed<CreatedStaffTokenResponse>(c.raw('post', `${tenant(slug)}/staff-tokens`, body)),
    listStaffTokens: (slug: string) =>
      typed<StaffTokenListResponse>(c.raw('get', `${tenant(slug)}/staff-tokens`)),
    listBonuses: (slug: string, q: Body<ListBonusesQueryDto> = {}) =>
      typed<BonusListResponse>(c.raw('get', `${tenant(slug)}/bonuses${query(q)}`)),
    createBonus: (slug: string, body: Body<CreateManualBonusDto>) =>
      typed<BonusResponse>(c.raw('post', `${tenant(slug)}/bonuses`, body)),
    approveBonus: (slug: string, bonusId: string) =>
      typed<BonusResponse>(c.raw('post', `${tenant(slug)}/bonuses/${bonusId}/approve`)),
    rejectBonus: (slug: string, bonusId: string, body: Body<RejectBonusDto> = {}) =>
      typed<BonusResponse>(c.raw('post', `${tenant(slug)}/bonuses/${bonusId}/reject`, body)),
    setLeadStatus: (slug: string, leadId: string, body: Body<ChangeLeadStatusDto>) =>
      typed<LeadResponse>(c.raw('post', `${tenant(slug)}/leads/${leadId}/status`, body)),
    registerConversion: (slug: string, body: Body<RegisterConversionDto>) =>
      typed<ConversionResponse>(c.raw('post', `${tenant(slug)}/conversions/register`, body)),
    previewConversion: (slug: string, body: Body<PreviewConversionDto>) =>
      typed<ConversionPreviewResponse>(c.raw('post', `${tenant(slug)}/conversions/preview`, body)),
    reverseConversion: (slug: string, conversionId: string, body: Body<ReverseConversionDto>) =>
      typed<ReversalResponse>(
        c.raw('post', `${tenant(slug)}/conversions/${conversionId}/reverse`, body),
      ),
    /** Deactivates (`active: false`) or activates a member by either of its ids. */
    setMemberActive: (slug: string, userId: string, active: boolean) =>
      typed<MemberStatusResponse>(
        c.raw('post', `${tenant(slug)}/users/${userId}/${active ? 'activate' : 'deactivate'}`),
      ),
    createOffer: (slug: string, body: Body<CreateOfferDto>) =>
      typed<OfferResponse>(c.raw('post', `${tenant(slug)}/offers`, body)),
    listOffers: (slug: string) => typed<OfferListResponse>(c.raw('get', `${tenant(slug)}/offers`)),
    auditLog: (slug: string, q: Body<ListAuditLogQueryDto> = {}) =>
      typed<AuditLogResponse>(c.raw('get', `${tenant(slug)}/audit-log${query(q)}`)),
    putWebhook: (slug: string, body: Body<PutWebhookDto>) =>
      typed<WebhookEndpointResponse>(c.raw('put', `${tenant(slug)}/webhook`, body)),
    getWebhook: (slug: string) =>
      typed<WebhookEndpointResponse>(c.raw('get', `${tenant(slug)}/webhook`)),
    rotateWebhookSecret: (slug: string) =>
      typed<WebhookSecretResponse>(c.raw('post', `${tenant(slug)}/webhook/secret`)),
    testWebhook: (slug: string) =>
      typed<WebhookTestResponse>(c.raw('post', `${tenant(slug)}/webhook/test`)),
    webhookEvents: (slug: string, q: Body<ListWebhookEventsQueryDto> = {}) =>
      typed<WebhookDeliveryListResponse>(c.raw('get', `${tenant(slug)}/webhook/events${query(q)}`)),
    webhookEvent: (slug: string, eventId: string) =>
      typed<WebhookEventDetailResponse>(c.raw('get', `${tenant(slug)}/webhook/events/${eventId}`)),
    replayWebhookEvent: (slug: string, eventId: string) =>
      typed<void>(c.raw('post', `${tenant(slug)}/webhook/events/${eventId}/replay`)),
  };
}

/** The Embed Data API as a tenant's page calls it: its `Origin`, the tenant's slug in the query. */
export function embedApi(t: TestApp, origin: string, tenantSlug: string) {
  const c = caller(t, { Origin: origin });
  const read =
    <T>(what: string) =>
    (userId: string, q: Record<string, string | number | undefined> = {}) =>
      typed<T>(
        c.raw('get', `/embed/v1/data/${what}/${userId}${query({ tenant: tenantSlug, ...q })}`),
      );
  return {
    raw: c.raw,
    cabinet: read<EmbedCabinetResponse>('cabinet'),
    bonuses: read<EmbedBonusesResponse>('bonuses'),
    leads: read<EmbedLeadsResponse>('leads'),
    referralTree: read<EmbedTreeResponse>('referral-tree'),
    partners: read<EmbedPartnersResponse>('partners'),
    /** The Embed Action API: a referral link with the partner's bearer JWT. */
    createReferralLink: (jwt: string, body: Body<CreateReferralLinkDto>) =>
      typed<ReferralLinkResponse>(
        c.raw('post', `/embed/v1/data/referral-link${query({ tenant: tenantSlug })}`, body, {
          Authorization: `Bearer ${jwt}`,
        }),
      ),
  };
}
