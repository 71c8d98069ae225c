import { AdminSessionEntity } from '../access/admin-session.entity';
import { ApplicationEntity } from '../applications/application.entity';
import { AuditEntryEntity } from '../audit/audit-entry.entity';
import { BonusEntity } from '../bonuses/bonus.entity';
import { BountyAwardEntity, BountyEntity } from '../bounties/bounty.entity';
import { MemberBalanceEntity } from '../bonuses/member-balance.entity';
import { ConversionEntity } from '../conversions/conversion.entity';
import { DeeplinkEntity } from '../deeplinks/deeplink.entity';
import { EventEntity } from '../outbox/event.entity';
import { GroupEntity } from '../groups/group.entity';
import { IdempotencyKeyEntity } from '../idempotency/idempotency-key.entity';
import { LeadEntity } from '../leads/lead.entity';
import { ConsentTokenEntity, SessionEntity } from '../sign-in-popup/session.entity';
import { SignInCodeEntity } from '../sign-in-popup/sign-in-code.entity';
import { OfferEntity } from '../offers/offer.entity';
import { PayoutEntity, PayoutRunEntity } from '../payouts/payout.entity';
import { PayoutDetailsEntity } from '../payouts/payout-details/payout-details.entity';
import { NotificationPreferenceEntity } from '../notifications/notification-preference.entity';
import { ProgramVersionEntity } from '../tenants/program-version.entity';
import { StaffTokenEntity } from '../tenants/staff-token.entity';
import { TenantKeyEntity } from '../tenants/tenant-key.entity';
import { TenantEntity } from '../tenants/tenant.entity';
import { MemberEntity } from '../members/member.entity';
import { WebhookAttemptEntity } from '../webhooks/webhook-attempt.entity';
import { WebhookDeliveryEntity } from '../webhooks/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../webhooks/webhook-endpoint.entity';
import { ServiceUserEntity } from '../members/service-user.entity';

/** Every entity, listed once: the app, the migration CLI and the tests load the same set. */
export const ENTITIES = [
  TenantEntity,
  TenantKeyEntity,
  StaffTokenEntity,
  AuditEntryEntity,
  ServiceUserEntity,
  MemberEntity,
  GroupEntity,
  OfferEntity,
  LeadEntity,
  ConversionEntity,
  BonusEntity,
  MemberBalanceEntity,
  EventEntity,
  IdempotencyKeyEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
  DeeplinkEntity,
  SignInCodeEntity,
  SessionEntity,
  ConsentTokenEntity,
  AdminSessionEntity,
  PayoutEntity,
  PayoutRunEntity,
  PayoutDetailsEntity,
  NotificationPreferenceEntity,
  ApplicationEntity,
  ProgramVersionEntity,
  BountyEntity,
  BountyAwardEntity,
];
