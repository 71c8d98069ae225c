import { MoneyCore1795258187575 } from './1795258187575-MoneyCore';
import { Webhooks1795260162777 } from './1795260162777-Webhooks';
import { EmbedReadModel1795260563118 } from './1795260563118-EmbedReadModel';
import { PopupAndLinks1795261021435 } from './1795261021435-PopupAndLinks';
import { AdminSessions1795262084132 } from './1795262084132-AdminSessions';
import { Init1795257744951 } from './1795257744951-Init';
import { WebhookEndpointSlots1795268917016 } from './1795268917016-WebhookEndpointSlots';
import { WebhookSlotHolders1795527930616 } from './1795527930616-WebhookSlotHolders';
import { IdempotencyInTransaction1795600000000 } from './1795600000000-IdempotencyInTransaction';
import { WebhookAttemptsInFlight1795640000000 } from './1795640000000-WebhookAttemptsInFlight';
import { Payouts1795700000000 } from './1795700000000-Payouts';
import { Imports1795720000000 } from './1795720000000-Imports';
import { ConsoleRollups1795740000000 } from './1795740000000-ConsoleRollups';
import { FraudReview1795710000000 } from './1795710000000-FraudReview';
import { ShardableSchema1795750000000 } from './1795750000000-ShardableSchema';
import { ConsoleTopIndex1795760000000 } from './1795760000000-ConsoleTopIndex';
import { ConsoleTopBound1795770000000 } from './1795770000000-ConsoleTopBound';
import { PayoutClaims1795780000000 } from './1795780000000-PayoutClaims';
import { MemberApprovedBonuses1795790000000 } from './1795790000000-MemberApprovedBonuses';
import { TenantMoneyBudget1795791320000 } from './1795791320000-TenantMoneyBudget';
import { LeadsAnonymous1795791330000 } from './1795791330000-LeadsAnonymous';
import { Groups1795791400000 } from './1795791400000-Groups';
import { PayoutDetails1795791700000 } from './1795791700000-PayoutDetails';
import { ProgramPhases1795791900000 } from './1795791900000-ProgramPhases';
import { Applications1795792000000 } from './1795792000000-Applications';
import { NotificationPreferences1795792100000 } from './1795792100000-NotificationPreferences';
import { PortalActivity1795792150000 } from './1795792150000-PortalActivity';
import { EmbedAuth1795792200000 } from './1795792200000-EmbedAuth';
import { PersonalSales1795792300000 } from './1795792300000-PersonalSales';
import { ProgramVersions1795792400000 } from './1795792400000-ProgramVersions';
import { ConversionsOrder1795792450000 } from './1795792450000-ConversionsOrder';
import { Bounties1795792500000 } from './1795792500000-Bounties';
import { PartnerMail1795792600000 } from './1795792600000-PartnerMail';
import { PersonalData1795792700000 } from './1795792700000-PersonalData';

/** Every migration in order; listed so the app, CLI and tests need no file globbing. */
export const MIGRATIONS = [
  Init1795257744951,
  MoneyCore1795258187575,
  Webhooks1795260162777,
  EmbedReadModel1795260563118,
  PopupAndLinks1795261021435,
  AdminSessions1795262084132,
  WebhookEndpointSlots1795268917016,
  WebhookSlotHolders1795527930616,
  IdempotencyInTransaction1795600000000,
  WebhookAttemptsInFlight1795640000000,
  Payouts1795700000000,
  Imports1795720000000,
  FraudReview1795710000000,
  ConsoleRollups1795740000000,
  ShardableSchema1795750000000,
  ConsoleTopIndex1795760000000,
  ConsoleTopBound1795770000000,
  PayoutClaims1795780000000,
  MemberApprovedBonuses1795790000000,
  TenantMoneyBudget1795791320000,
  LeadsAnonymous1795791330000,
  Groups1795791400000,
  PayoutDetails1795791700000,
  ProgramPhases1795791900000,
  Applications1795792000000,
  NotificationPreferences1795792100000,
  PortalActivity1795792150000,
  EmbedAuth1795792200000,
  PersonalSales1795792300000,
  ProgramVersions1795792400000,
  ConversionsOrder1795792450000,
  Bounties1795792500000,
  PartnerMail1795792600000,
  PersonalData1795792700000,
];
