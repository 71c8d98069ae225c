/**
 * The answers of the service that the widgets read: only the fields they use. The server's
 * DTOs must stay assignable to these (checked by src/widget/widget-api-types.spec.ts), so a
 * change of the API that breaks a widget breaks the build instead.
 */

export interface Pagination {
  page: number;
  total: number;
  total_pages: number;
}

export interface User {
  display_name: string;
  badge: { role_label: string };
  claim_required: boolean;
}

export interface LeadItem {
  id: string;
  status: string;
  status_human: string;
  contact_name: string;
  relative_time: string;
}

export interface Transaction {
  bonus_id: string;
  status: string;
  status_human: string;
  amount_formatted: string;
  source_type: string;
  tier: string | null;
  relative_time: string;
}

/** When the partner is paid next (`balance.next_payout`). */
export interface NextPayout {
  schedule: string;
  date: string | null;
  date_formatted: string | null;
  minimum_formatted: string;
  payable_formatted: string;
  remaining_kopecks: number;
  remaining_formatted: string;
}

/** The partner's money in the tenant currency, each sum once (`balance`). */
export interface Money {
  available_kopecks: number;
  available_formatted: string;
  in_payout_formatted: string;
  paid_formatted: string;
  pending_formatted: string;
  next_payout: NextPayout;
}

export interface Cabinet {
  user: User;
  kpi: {
    leads_count: number;
    clicks_count: number | null | undefined;
  };
  balance: Money;
  recent_leads: LeadItem[];
  transactions: Transaction[];
}

/** One currency's account with the ledger's balances (docs/payouts.md). */
export interface Balance {
  currency: string;
  pending_formatted: string;
  available_formatted: string;
  in_payout_formatted: string;
  paid_formatted: string;
}

export interface PayoutItem {
  payout_id: string;
  status: string;
  status_human: string;
  amount_formatted: string;
  relative_time: string;
}

export interface Payouts {
  payouts: PayoutItem[];
}

export interface Bonuses {
  totals: { currency: string };
  balance: Money;
  accounts: Balance[];
  transactions: Transaction[];
  pagination: Pagination;
}

export interface Leads {
  leads: LeadItem[];
  pagination: Pagination;
}

export interface TreeNode {
  user_id: string;
  display_name: string;
  depth: number;
  parent_user_id: string | null;
}

export interface Tree {
  root: TreeNode;
  levels: TreeNode[][];
  total_downline: number;
  hit_depth_cap: boolean;
  max_depth: number;
  truncated?: boolean;
}

export interface Partner {
  user_id: string;
  display_name: string;
  partnership_role: string;
  joined_at: string;
  is_active: boolean;
}

export interface Partners {
  partners: Partner[];
  pagination: Pagination;
}

export interface ReferralLink {
  short_url: string;
  reused: boolean;
}

/** A question of a group's application form (docs/partners.md, "Applications"). */
export interface SignupField {
  name: string;
  label: string;
  type: 'text' | 'url' | 'textarea' | 'select';
  required: boolean;
  options?: string[];
}

export interface ApplicationForm {
  group: string;
  name: string;
  fields: SignupField[];
}

/** One of the signed-in partner's links (`GET …/data/referral-links`). */
export interface ReferralLinkItem {
  code: string;
  short_url: string;
  target_type: string;
  target_id: string;
  promo_code: string | null;
  recommendation_text: string | null;
  clicks_count: number;
}

export interface ReferralLinks {
  items: ReferralLinkItem[];
}

export interface LeadCreated {
  lead_id: string;
}

export interface OriginCheck {
  allowed: boolean;
  code: string | null;
  detail: string | null;
  locale: string | null;
}

/** An error answer (`application/problem+json`). */
export interface Problem {
  code?: string;
  detail?: string;
  errors?: { field: string; message: string }[];
}
