import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Balances, payouts and clawbacks (docs/payouts.md):
 *
 * - `ledger_entries`: append-only, one row per movement of a member's money in one currency, as
 *   deltas of the three buckets (`available`, `in_payout`, `paid`); `ledger_balances` holds their
 *   sums, upserted by the same statement that appends the entries, so no read sums a history.
 * - `payout_runs`, `payouts` and `payout_items` (the bonuses and clawbacks a payout nets). The
 *   unique partial index `ux_payout_items_live` is the database's guarantee that a bonus or a
 *   clawback is in at most one payout that is not failed or canceled, under any concurrency.
 * - `clawbacks`: minus a bonus reversed after it was paid or while a pending payout held it.
 * - `bonuses.paid_at`, and `tenants.payouts` (minimum, schedule, hold days).
 *
 * Every table is tenant-owned: `tenant_id` leads its primary key and every unique index.
 */
export class Payouts1795700000000 implements MigrationInterface {
  name = 'Payouts1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "tenants" ADD "payouts" jsonb NOT NULL DEFAULT '{"minimum_kopecks":100000,"schedule":"manual","hold_days":0}'`,
    );
    await queryRunner.query(`ALTER TABLE "bonuses" ADD "paid_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE TABLE "ledger_entries" ("tenant_id" text NOT NULL, "id" bigint GENERATED ALWAYS AS IDENTITY, "member_id" text NOT NULL, "currency" character(3) NOT NULL, "kind" text NOT NULL, "available_delta" bigint NOT NULL DEFAULT 0, "in_payout_delta" bigint NOT NULL DEFAULT 0, "paid_delta" bigint NOT NULL DEFAULT 0, "bonus_id" text, "payout_id" text, "clawback_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_ledger_entries" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_ledger_entries_member" ON "ledger_entries" ("tenant_id", "member_id", "currency", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "ledger_balances" ("tenant_id" text NOT NULL, "member_id" text NOT NULL, "currency" character(3) NOT NULL, "available_kopecks" bigint NOT NULL DEFAULT 0, "in_payout_kopecks" bigint NOT NULL DEFAULT 0, "paid_kopecks" bigint NOT NULL DEFAULT 0, CONSTRAINT "pk_ledger_balances" PRIMARY KEY ("tenant_id", "member_id", "currency"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "payout_runs" ("tenant_id" text NOT NULL, "id" text NOT NULL, "trigger" text NOT NULL, "schedule_key" text, "payouts_count" integer NOT NULL DEFAULT 0, "total_kopecks" bigint NOT NULL DEFAULT 0, "currency_totals" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_payout_runs" PRIMARY KEY ("tenant_id", "id"))`,
    );
    // The schedule's run of a given day happens once, however many workers fire it.
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_payout_runs_schedule" ON "payout_runs" ("tenant_id", "schedule_key") WHERE "schedule_key" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "payouts" ("tenant_id" text NOT NULL, "id" text NOT NULL, "run_id" text NOT NULL, "member_id" text NOT NULL, "service_user_id" text NOT NULL, "currency" character(3) NOT NULL, "amount_kopecks" bigint NOT NULL, "status" text NOT NULL, "reference" text, "failure_reason" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "paid_at" TIMESTAMP WITH TIME ZONE, "settled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "pk_payouts" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_payouts_created" ON "payouts" ("tenant_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_payouts_run" ON "payouts" ("tenant_id", "run_id", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_payouts_member" ON "payouts" ("tenant_id", "member_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "payout_items" ("tenant_id" text NOT NULL, "payout_id" text NOT NULL, "item_id" text NOT NULL, "kind" text NOT NULL, "amount_kopecks" bigint NOT NULL, "live" boolean NOT NULL DEFAULT true, CONSTRAINT "pk_payout_items" PRIMARY KEY ("tenant_id", "payout_id", "item_id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_payout_items_live" ON "payout_items" ("tenant_id", "item_id") WHERE "live"`,
    );
    await queryRunner.query(
      `CREATE TABLE "clawbacks" ("tenant_id" text NOT NULL, "id" text NOT NULL, "member_id" text NOT NULL, "service_user_id" text NOT NULL, "bonus_id" text NOT NULL, "currency" character(3) NOT NULL, "amount_kopecks" bigint NOT NULL, "state" text NOT NULL, "payout_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_clawbacks" PRIMARY KEY ("tenant_id", "id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_clawbacks_open" ON "clawbacks" ("tenant_id", "member_id") WHERE "state" = 'open'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_clawbacks_bonus" ON "clawbacks" ("tenant_id", "bonus_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_clawbacks_held" ON "clawbacks" ("tenant_id", "payout_id") WHERE "state" = 'held'`,
    );
    // A run reads a tenant's approved bonuses; payable ones are found without the others.
    await queryRunner.query(
      `CREATE INDEX "ix_bonuses_approved" ON "bonuses" ("tenant_id", "approved_at") WHERE "status" = 'approved'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_bonuses_approved"`);
    await queryRunner.query(`DROP TABLE "clawbacks"`);
    await queryRunner.query(`DROP TABLE "payout_items"`);
    await queryRunner.query(`DROP TABLE "payouts"`);
    await queryRunner.query(`DROP TABLE "payout_runs"`);
    await queryRunner.query(`DROP TABLE "ledger_balances"`);
    await queryRunner.query(`DROP TABLE "ledger_entries"`);
    await queryRunner.query(`ALTER TABLE "bonuses" DROP COLUMN "paid_at"`);
    await queryRunner.query(`ALTER TABLE "tenants" DROP COLUMN "payouts"`);
  }
}
