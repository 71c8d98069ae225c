import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/money.md, "Bounties" (SPEC 15): `bounties` (`bty_…`), one-time bonuses for reaching a
 * number of referred conversions or an amount of referred revenue within a period, and
 * `bounty_awards`, one row per partner and bounty that reached it. The awards' primary key is
 * what makes the bonus exactly once: the conversion that crosses the threshold inserts its row
 * with ON CONFLICT DO NOTHING and creates the bonus only when the row is its own.
 */
export class Bounties1795792500000 implements MigrationInterface {
  name = 'Bounties1795792500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE bounties (
        tenant_id text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        group_id text,
        metric text NOT NULL,
        threshold bigint NOT NULL,
        amount_kopecks bigint NOT NULL,
        currency char(3) NOT NULL,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_bounties PRIMARY KEY (tenant_id, id),
        CONSTRAINT ck_bounties_metric CHECK (metric IN ('conversions', 'revenue_kopecks')),
        CONSTRAINT ck_bounties_period CHECK (ends_at IS NULL OR ends_at > starts_at),
        CONSTRAINT fk_bounties_tenant FOREIGN KEY (tenant_id) REFERENCES tenants (id),
        CONSTRAINT fk_bounties_group FOREIGN KEY (tenant_id, group_id)
          REFERENCES groups (tenant_id, id))`);
    // A conversion's look-up of the bounties running at its time: the tenant's few rows.
    await queryRunner.query(
      `CREATE INDEX ix_bounties_period ON bounties (tenant_id, starts_at, ends_at)`,
    );
    await queryRunner.query(`
      CREATE TABLE bounty_awards (
        tenant_id text NOT NULL,
        bounty_id text NOT NULL,
        member_id text NOT NULL,
        bonus_id text,
        value bigint NOT NULL,
        reached_at timestamptz NOT NULL,
        CONSTRAINT pk_bounty_awards PRIMARY KEY (tenant_id, bounty_id, member_id),
        CONSTRAINT fk_bounty_awards_bounty FOREIGN KEY (tenant_id, bounty_id)
          REFERENCES bounties (tenant_id, id))`);
    await queryRunner.query(
      `CREATE INDEX ix_bounty_awards_member ON bounty_awards (tenant_id, member_id)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE bounty_awards`);
    await queryRunner.query(`DROP TABLE bounties`);
  }
}
