/**
 * Every column that can hold personal data, and how erasure (docs/privacy.md) handles it; and the
 * columns whose names look personal but are not, with why. test/e2e/privacy/personal-columns
 * reads the database's catalog and fails for a text, jsonb or inet column whose name looks
 * personal (PERSONAL_NAME) or that is jsonb or inet at all, and is in neither list: a new column
 * that may hold personal data cannot land without saying how it is erased.
 *
 * "member" erases the member's own rows (members.erase and the `member` steps); "redact" replaces
 * the erased values wherever they were copied (the `redact` steps, database/redaction.ts);
 * "customer" clears a customer's rows (the `customer` steps); "retention" clears it after the
 * tenant's `retention.client_data_days` (housekeeping).
 */
export const PERSONAL_COLUMNS: Record<string, string> = {
  'members.email': 'member: cleared',
  'members.full_name': 'member: cleared',
  'members.vk_id': 'member: cleared',
  'members.external_id': "member: replaced by 'erased:' and the member id",
  'members.last_seen_ip': 'member: cleared',
  'members.ban_reason': "member: '[erased]'; redact: other members' reasons",
  'service_users.verified_email': 'member: cleared once no member of any tenant stands on it',
  'service_users.vk_id': 'member: cleared once no member of any tenant stands on it',
  'sign_in_codes.email': 'member: the codes deleted',
  'applications.email': "member: replaced by 'erased:' and the application id",
  'applications.full_name': "member: '[erased]'",
  'applications.answers': "member: '{}'",
  'applications.reason': "member: '[erased]'",
  'payout_details.sealed': 'member: the row deleted',
  'payouts.details_sealed': 'member: cleared (the payout, its amount and state stay)',
  'payouts.reference': 'redact',
  'payouts.failure_reason': 'redact',
  'leads.contact_name': "customer: '[erased]'; redact",
  'leads.contact_email': 'customer: cleared; redact',
  'leads.contact_phone': 'customer: cleared; redact',
  'leads.metadata': "customer: '{}'; redact",
  'leads.client_ip': 'customer: cleared; retention',
  'leads.client_user_agent': 'customer: cleared; retention; redact',
  'leads.risk_signals': 'redact (the sentences name emails and IPs)',
  'leads.status_reason': 'redact',
  'conversions.client_ip': 'customer: cleared; retention',
  'conversions.client_user_agent': 'customer: cleared; retention; redact',
  'conversions.reward_note': 'redact',
  'conversions.reverse_reason': 'redact',
  'bonuses.review': 'redact (fraud-signal sentences)',
  'bonuses.explanation': 'redact',
  'bonuses.reason': 'redact',
  'events.body': 'redact (what later deliveries and replays send, signed afresh)',
  'idempotency_keys.response_body': 'redact (what a repeat answers)',
  'audit_log.details': 'redact',
  'audit_log.actor_name': 'redact',
  'webhook_attempts.response_body': 'redact (a receiver may echo the payload)',
  'webhook_attempts.error': 'redact',
  'webhook_deliveries.last_error': 'redact',
  'deeplinks.recommendation_text': 'redact',
  'deeplinks.promo_code': 'redact',
  'imports.errors': 'redact (rejected rows of an import)',
  'notifications.to_address': "member: the member's mail deleted",
  'notifications.data': "member: deleted; redact (other members' mail naming them)",
  'notifications.last_error': 'member: deleted; redact (an SMTP answer may echo the address)',
  'notification_items.data': "member: deleted; redact (other members' digests naming them)",
  'mail_suppressions.email': "member: the member's addresses deleted",
  'mail_suppressions.reason': 'member: deleted with the address; redact',
};

/** Columns whose names look personal, and why they are not. */
export const NOT_PERSONAL: Record<string, string> = {
  'tenants.display_name': "the organisation's name",
  'tenants.branding': "the organisation's sender name, reply-to, colour and logo",
  'tenants.notifications': "the tenant's digest hour and mail templates",
  'tenants.program': 'reward rules',
  'tenants.payouts': 'payout settings',
  'tenants.fraud': 'risk-signal settings',
  'tenants.link_templates': "URL templates of the tenant's site",
  'tenants.retention': 'retention settings',
  'staff_tokens.name': 'a label staff give a token',
  'tenant_keys.name': 'a label staff give a key',
  'offers.name': "an offer's title",
  'offers.program': 'reward rules',
  'groups.name': "a partner group's title",
  'groups.program': 'reward rules',
  'groups.signup': "the group's application form (field labels, not answers)",
  'groups.promote_to': 'promotion rules',
  'bounties.name': "a bounty's title",
  'bonuses.rule': 'the program rule that paid (tiers, rates)',
  'program_versions.program': 'reward rules',
  'program_versions.actor_name': 'a staff actor (a token or staff name), never a partner',
  'imports.actor_name': 'a staff actor, never a partner',
  'payouts.details_method': 'the payout method (bank_account, paypal)',
  'payout_details.method': 'the payout method (bank_account, paypal)',
  'payout_runs.currency_totals': 'sums per currency',
  'webhook_endpoints.secret_sealed': "the tenant's signing secret, sealed",
  'webhook_endpoints.previous_secret_sealed': "the tenant's previous signing secret, sealed",
  'webhook_endpoint_slots.holder': 'the id of the worker process holding a delivery slot',
};

/** A column name that may hold personal data (by its underscore-separated words). */
export const PERSONAL_NAME =
  /(^|_)(name|email|phone|ip|user_agent|agent|contact|address|details|payload|answers?|body|reason|note|text|errors?|metadata|signals|review|explanation|sealed|reference|holder|account|vk_id|external_id|iban)($|_)/;
