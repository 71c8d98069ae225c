import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partner notification preferences (docs/partners.md, "Notifications"): one row per member and
 * mail type the member (in the portal) or staff (the Admin API) set; a type without a row has its
 * default (notifications/notification-types.ts). Deleted with the member.
 */
export class NotificationPreferences1795792100000 implements MigrationInterface {
  name = 'NotificationPreferences1795792100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE notification_preferences (
        tenant_id text NOT NULL,
        member_id text NOT NULL,
        type text NOT NULL,
        mode text NOT NULL CONSTRAINT ck_notification_preferences_mode
          CHECK (mode IN ('instant', 'daily', 'off')),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_notification_preferences PRIMARY KEY (tenant_id, member_id, type),
        CONSTRAINT fk_notification_preferences_member FOREIGN KEY (tenant_id, member_id)
          REFERENCES members (tenant_id, id) ON DELETE CASCADE)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE notification_preferences`);
  }
}
