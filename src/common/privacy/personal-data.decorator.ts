import { SetMetadata } from '@nestjs/common';

/**
 * How each feature takes part in erasure and the subject-access export (docs/privacy.md), declared
 * on a method of its repository like housekeeping's `@Retention()`: the privacy feature finds
 * every such method at start-up and calls them in one transaction, so each feature writes its own
 * tables only and nothing reaches into it. The list of personal columns and how each is handled
 * is src/privacy/personal-columns.ts (test/e2e/privacy checks it against the catalog).
 */
export const PERSONAL_DATA = 'privacy:personal-data';

/** What the customer erasure matches (at least one field given). */
export interface CustomerMatch {
  email?: string;
  phone?: string;
  external_id?: string;
}

/** What a member's erasure hands each step: the member and their values known so far. */
export interface ErasedMember {
  tenantId: string;
  memberId: string;
  serviceUserId: string;
  email: string | null;
}

/**
 * - `member`: `(member: ErasedMember) => Promise<string[]>` deletes or clears the member's own
 *   rows of the feature and answers the personal values they held (to be redacted elsewhere);
 * - `customer`: `(tenantId, match: CustomerMatch) => Promise<{ count: number; values: string[] }>`
 *   clears the matching customers' rows and answers how many and their values; `order` first;
 * - `redact`: `(tenantId, values: string[]) => Promise<number>` replaces the values wherever the
 *   feature copied them into free text or JSON (stored events, answers, audit, sentences);
 * - `export`: `(tenantId, memberId) => Promise<Record<string, unknown>>`, the feature's personal
 *   fields about the member, keyed by what they are.
 */
export type PersonalDataRole = 'member' | 'customer' | 'redact' | 'export';

export interface PersonalDataOptions {
  role: PersonalDataRole;
  /** The key of the step's part in reports and the export. */
  name: string;
  /** Ascending; 0 by default. */
  order?: number;
}

export const PersonalData = (role: PersonalDataRole, name: string, order = 0) =>
  SetMetadata(PERSONAL_DATA, { role, name, order } satisfies PersonalDataOptions);

/**
 * The SQL condition "lead `alias` is this customer" (`$2` email, `$3` phone, `$4` external id,
 * each null when not given): the email any case, the phone by its digits, the external id as the
 * conversion's `customer.external_id` stored it.
 */
export const customerMatchSql = (alias: string) =>
  `(lower(${alias}.contact_email) = lower($2::text)
    OR (regexp_replace($3::text, '\\D', '', 'g') <> ''
        AND regexp_replace(${alias}.contact_phone, '\\D', '', 'g') = regexp_replace($3::text, '\\D', '', 'g'))
    OR ${alias}.metadata->>'customer_external_id' = $4::text)`;

/** `customerMatchSql`'s parameters after the tenant id. */
export const customerMatchParams = (match: CustomerMatch) => [
  match.email ?? null,
  match.phone ?? null,
  match.external_id ?? null,
];
