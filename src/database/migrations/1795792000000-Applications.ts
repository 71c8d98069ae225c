import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partner applications (docs/partners.md, "Applications"), tenant-first like every table. At most
 * one live application (`unconfirmed` or `pending`) per tenant and email, whatever the case of
 * the email and however many submissions race: a partial unique index, on which a submission's
 * insert does nothing when another is live. The confirmation token is kept only as its SHA-256
 * (`token_hash`, with its end of validity), and `mailed_at` is when a mail last went out for it
 * (at most one per 10 minutes per email).
 */
export class Applications1795792000000 implements MigrationInterface {
  name = 'Applications1795792000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE applications (
        tenant_id text NOT NULL,
        id text NOT NULL,
        group_id text NOT NULL,
        email text NOT NULL,
        full_name text NOT NULL,
        answers jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'unconfirmed',
        referrer_member_id text,
        member_id text,
        reason text,
        token_hash text,
        token_expires_at timestamptz,
        mailed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        confirmed_at timestamptz,
        decided_at timestamptz,
        CONSTRAINT pk_applications PRIMARY KEY (tenant_id, id),
        CONSTRAINT ck_applications_status
          CHECK (status IN ('unconfirmed', 'pending', 'approved', 'rejected')),
        CONSTRAINT fk_applications_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id),
        CONSTRAINT fk_applications_group FOREIGN KEY (tenant_id, group_id)
          REFERENCES groups (tenant_id, id))`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX uq_applications_live ON applications (tenant_id, lower(email))
        WHERE status IN ('unconfirmed', 'pending')`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX uq_applications_token ON applications (tenant_id, token_hash)
        WHERE token_hash IS NOT NULL`);
    // The staff list (by status, newest first) and the mail rule's look-up by email.
    await queryRunner.query(`
      CREATE INDEX ix_applications_status ON applications (tenant_id, status, created_at, id)`);
    await queryRunner.query(`
      CREATE INDEX ix_applications_email ON applications (tenant_id, lower(email), mailed_at)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE applications`);
  }
}
