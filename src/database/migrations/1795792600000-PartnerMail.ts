import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/notifications.md (SPEC 16): partner mail from the outbox.
 *
 * - `notifications` (`ntf_…`): the delivery log, one row per mail. An instant mail is unique per
 *   (tenant, source, recipient, type), the source being the event (or, for `downline.joined`, the
 *   member who joined), so a worker that reads an event twice writes its mail once; a digest is
 *   unique per (tenant, recipient, the end of the period it covers). Each row is claimed for one
 *   attempt at a time by moving `next_attempt_at` past the attempt (a lease), like a webhook delivery.
 * - `notification_items`: what waits for a member's daily digest, unique the same way; a digest
 *   takes them (`digest_id`) in the transaction that writes it.
 * - `notification_scans` and `notification_cursors`: which events (and joined members) the
 *   worker has read, so a re-read of the overlap window (transactions commit out of order) costs
 *   no rendering.
 * - `mail_suppressions`: addresses an SMTP server refused permanently (5xx), per tenant.
 * - `tenants.branding` and `tenants.notifications` (digest hour, per-type templates).
 */
export class PartnerMail1795792600000 implements MigrationInterface {
  name = 'PartnerMail1795792600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE tenants
        ADD COLUMN branding jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN notifications jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`
      CREATE TABLE notifications (
        tenant_id text NOT NULL,
        id text NOT NULL,
        type text NOT NULL,
        recipient text NOT NULL,
        member_id text,
        source_id text,
        period_end timestamptz,
        status text NOT NULL DEFAULT 'queued',
        to_address text NOT NULL,
        subject text,
        message_id text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_notifications PRIMARY KEY (tenant_id, id),
        CONSTRAINT ck_notifications_status
          CHECK (status IN ('queued', 'sent', 'failed', 'suppressed')),
        CONSTRAINT fk_notifications_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id))`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX ux_notifications_source ON notifications (tenant_id, source_id, recipient, type)
        WHERE source_id IS NOT NULL`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX ux_notifications_digest ON notifications (tenant_id, recipient, period_end)
        WHERE type = 'digest'`);
    // The worker's claim: the due queued mails of every tenant.
    await queryRunner.query(`
      CREATE INDEX ix_notifications_due ON notifications (next_attempt_at) WHERE status = 'queued'`);
    await queryRunner.query(
      `CREATE INDEX ix_notifications_log ON notifications (tenant_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE notification_items (
        tenant_id text NOT NULL,
        source_id text NOT NULL,
        member_id text NOT NULL,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        digest_id text,
        CONSTRAINT pk_notification_items PRIMARY KEY (tenant_id, source_id, member_id, type),
        CONSTRAINT fk_notification_items_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id))`);
    await queryRunner.query(`
      CREATE INDEX ix_notification_items_waiting ON notification_items (occurred_at)
        WHERE digest_id IS NULL`);
    await queryRunner.query(`
      CREATE INDEX ix_notification_items_digest ON notification_items (tenant_id, digest_id)
        WHERE digest_id IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE notification_scans (
        tenant_id text NOT NULL,
        source_id text NOT NULL,
        scanned_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_notification_scans PRIMARY KEY (tenant_id, source_id))`);
    await queryRunner.query(`
      CREATE TABLE notification_cursors (
        tenant_id text NOT NULL,
        stream text NOT NULL,
        scanned_to timestamptz NOT NULL,
        CONSTRAINT pk_notification_cursors PRIMARY KEY (tenant_id, stream),
        CONSTRAINT fk_notification_cursors_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id))`);
    // Existing tenants start now: their past is not mailed.
    await queryRunner.query(
      `INSERT INTO notification_cursors (tenant_id, stream, scanned_to)
       SELECT t.id, s.stream, now() FROM tenants t CROSS JOIN (VALUES ('events'), ('members')) s(stream)`,
    );
    await queryRunner.query(`
      CREATE TABLE mail_suppressions (
        tenant_id text NOT NULL,
        email text NOT NULL,
        reason text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_mail_suppressions PRIMARY KEY (tenant_id, email),
        CONSTRAINT fk_mail_suppressions_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id))`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'mail_suppressions',
      'notification_cursors',
      'notification_scans',
      'notification_items',
      'notifications',
    ])
      await queryRunner.query(`DROP TABLE ${table}`);
    await queryRunner.query(`ALTER TABLE tenants DROP COLUMN branding, DROP COLUMN notifications`);
  }
}
