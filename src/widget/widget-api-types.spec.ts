import type {
  EmbedBonusesResponse,
  EmbedCabinetResponse,
  EmbedLeadsResponse,
  EmbedPartnersResponse,
  EmbedTreeResponse,
} from '../embed/dto/embed.response';
import type { ProblemResponse } from '../common/errors/problem.response';
import type {
  ReferralLinkListResponse,
  ReferralLinkResponse,
} from '../deeplinks/dto/referral-link.dto';
import type { LeadCreatedResponse } from '../leads/dto/lead.response';
import type * as Widget from './browser/types';
import type { EmbedPayoutsResponse } from '../embed/dto/embed-payouts.response';
import type { WidgetOriginCheckResponse } from './dto/widget.response';

/**
 * The widgets (browser code, src/widget/browser) describe the answers they read in
 * browser/types.ts. Each server DTO must be assignable to that description: a renamed or retyped
 * field the widgets use fails this file's compilation (ts-jest type-checks it), not a browser.
 */
type Fits<Server extends Client, Client> = [Server, Client];

export type _Checked = [
  Fits<EmbedCabinetResponse, Widget.Cabinet>,
  Fits<EmbedBonusesResponse, Widget.Bonuses>,
  Fits<EmbedPayoutsResponse, Widget.Payouts>,
  Fits<EmbedLeadsResponse, Widget.Leads>,
  Fits<EmbedTreeResponse, Widget.Tree>,
  Fits<EmbedPartnersResponse, Widget.Partners>,
  Fits<ReferralLinkResponse, Widget.ReferralLink>,
  Fits<ReferralLinkListResponse, Widget.ReferralLinks>,
  Fits<LeadCreatedResponse, Widget.LeadCreated>,
  Fits<WidgetOriginCheckResponse, Widget.OriginCheck>,
  Fits<ProblemResponse, Widget.Problem>,
];

it('the server answers fit what the widgets read (checked when this file compiles)', () => {
  expect(true).toBe(true);
});
