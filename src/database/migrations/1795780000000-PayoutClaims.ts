import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A payout's items move onto the payout row, and the live guarantee onto a narrow claims table
 * (docs/payouts.md §9, §10):
 *
 * - `payouts.item_ids` / `payouts.item_amounts`: the bonuses and clawbacks the payout nets,
 *   `item_amounts[i]` being the amount of `item_ids[i]`. Written once by the run; a payout is never
 *   edited, so its items are read with it, whatever its status (a failed or canceled one keeps them).
 * - `payout_claims`: one row per item held by a payout that is not failed or canceled (pending or
 *   paid). Its primary key `(tenant_id, item_id)` is the database's guarantee that a bonus or a
 *   clawback is in at most one such payout, under any concurrency; failing or canceling a payout
 *   deletes its claims. It replaces `payout_items`, whose rows cost a run a heap row and two
 *   B-tree entries per bonus (the primary key and the partial unique index `ux_payout_items_live`).
 */
export class PayoutClaims1795780000000 implements MigrationInterface {
  name = 'PayoutClaims1795780000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "payouts" ADD "item_ids" text[] NOT NULL DEFAULT '{}', ADD "item_amounts" bigint[] NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `UPDATE "payouts" p SET "item_ids" = i.ids, "item_amounts" = i.amounts
         FROM (SELECT tenant_id, payout_id, array_agg(item_id ORDER BY item_id) AS ids,
                      array_agg(amount_kopecks ORDER BY item_id) AS amounts
                 FROM "payout_items" GROUP BY tenant_id, payout_id) i
        WHERE p.tenant_id = i.tenant_id AND p.id = i.payout_id`,
    );
    await queryRunner.query(
      `ALTER TABLE "payouts" ALTER "item_ids" DROP DEFAULT, ALTER "item_amounts" DROP DEFAULT`,
    );
    await queryRunner.query(
      `CREATE TABLE "payout_claims" ("tenant_id" text NOT NULL, "item_id" text NOT NULL, "payout_id" text NOT NULL, CONSTRAINT "pk_payout_claims" PRIMARY KEY ("tenant_id", "item_id"))`,
    );
    await queryRunner.query(
      `INSERT INTO "payout_claims" (tenant_id, item_id, payout_id)
       SELECT tenant_id, item_id, payout_id FROM "payout_items" WHERE live
        ORDER BY tenant_id, item_id`,
    );
    await queryRunner.query(`DROP TABLE "payout_items"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "payout_items" ("tenant_id" text NOT NULL, "payout_id" text NOT NULL, "item_id" text NOT NULL, "kind" text NOT NULL, "amount_kopecks" bigint NOT NULL, "live" boolean NOT NULL DEFAULT true, CONSTRAINT "pk_payout_items" PRIMARY KEY ("tenant_id", "payout_id", "item_id"))`,
    );
    await queryRunner.query(
      `INSERT INTO "payout_items" (tenant_id, payout_id, item_id, kind, amount_kopecks, live)
       SELECT p.tenant_id, p.id, i.item_id,
              CASE WHEN i.item_id LIKE 'clw\\_%' THEN 'clawback' ELSE 'bonus' END, i.amount,
              p.status IN ('pending', 'paid')
         FROM "payouts" p, unnest(p.item_ids, p.item_amounts) AS i(item_id, amount)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_payout_items_live" ON "payout_items" ("tenant_id", "item_id") WHERE "live"`,
    );
    await queryRunner.query(`DROP TABLE "payout_claims"`);
    await queryRunner.query(
      `ALTER TABLE "payouts" DROP COLUMN "item_ids", DROP COLUMN "item_amounts"`,
    );
  }
}
