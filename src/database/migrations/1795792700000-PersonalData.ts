import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/privacy.md (SPEC 17): `members.erased_at`, set once when a member's personal data is
 * erased (the row stays, a deactivated tombstone, so the tree, the ledger and payouts still add
 * up), and the tenant's `retention` (how long client IPs and user agents are kept). The partial
 * indexes let the housekeeping job find rows that still hold client data past the retention, and
 * answer without a scan of every tenant's members whether a service user still stands behind a
 * member anywhere (its email is forgotten once none does).
 */
export class PersonalData1795792700000 implements MigrationInterface {
  name = 'PersonalData1795792700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE members ADD erased_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX ix_members_service_user_live ON members (service_user_id)
        WHERE erased_at IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE tenants ADD retention jsonb NOT NULL
         DEFAULT '{"client_data_days": 90, "events_days": 30}'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_leads_client_data ON leads (tenant_id, created_at)
        WHERE client_ip IS NOT NULL OR client_user_agent IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_conversions_client_data ON conversions (tenant_id, created_at)
        WHERE client_ip IS NOT NULL OR client_user_agent IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_conversions_client_data`);
    await queryRunner.query(`DROP INDEX ix_leads_client_data`);
    await queryRunner.query(`ALTER TABLE tenants DROP COLUMN retention`);
    await queryRunner.query(`DROP INDEX ix_members_service_user_live`);
    await queryRunner.query(`ALTER TABLE members DROP COLUMN erased_at`);
  }
}
