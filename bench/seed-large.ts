/**
 * The Embed Data API's scale data set (docs/performance.md): one tenant `bench` with 1,000,000
 * members in a random referral forest, 2,000,000 leads and 3,000,000 bonuses, built in a few
 * set-based statements in well under 5 minutes on a 2-core machine.
 *
 * Run:  npx ts-node --transpile-only bench/seed-large.ts [--reuse] [--drop]
 *   (default)  drops and rebuilds the database `bench_embed`
 *   --reuse    keeps a complete `bench_embed` (applies pending migrations only) and rewrites
 *              bench/.seed-large.json; rebuilds it when it is missing or incomplete
 *   --drop     drops `bench_embed` and bench/.seed-large.json, and stops
 * Knobs: BENCH_DATABASE_SERVER (postgres://postgres@127.0.0.1:5432), BENCH_EMBED_DATABASE
 * (bench_embed), BENCH_MEMBERS (1000000), BENCH_LEADS (2000000), BENCH_BONUSES (3000000).
 * Needs a superuser connection (the load runs with session_replication_role = replica).
 *
 * How it is built:
 * - The forest's shape is drawn in memory (typed arrays, a seeded PRNG, about a second): members
 *   join in id order and pick an earlier member as referrer, so every referrer joined before its
 *   referrals. 2 % join without a referrer (roots); the others pick by preferential attachment
 *   (the referrer of a random earlier member: popular partners get more), uniformly, or among the
 *   last 30 to join (bursts that make chains). 13 % of joins belong to the "big partner"'s
 *   community and pick inside its subtree, so that subtree holds ~130,000 members; every
 *   ~1,850th of those extends one chain, so the big partner's subtree is ~70 levels deep.
 *   depth, root, downline_count and deepest_depth come out of the same pass (parents come first,
 *   so one forward and one backward sweep give exact values).
 * - Who gets each lead and bonus is drawn too: `floor(N · u³)`, so early members (who also have
 *   the biggest downlines) get the most (member 0 ~1 %); and each bonus's amount, status
 *   (pending/approved/rejected/reversed), source (conversion/lead/manual), tier and currency.
 *   leads_count and the per-currency balances follow from the same draw, exactly as the triggers
 *   trg_leads_count and trg_bonuses_balance would have kept them.
 * - Everything goes in as set-based `INSERT … SELECT` statements, 250,000–500,000 rows each, the
 *   drawn columns as arrays through `unnest` (times, names and the rest are made in SQL, with
 *   `random()` and `generate_series`), under `session_replication_role = replica` (no trigger
 *   fires: neither the foreign keys nor the two counters, which the load sets itself) and with
 *   the plain indexes dropped. Three connections share the work; each table's indexes are rebuilt
 *   from their own definitions as soon as it is loaded, and VACUUM ANALYZE ends the load (when
 *   no load transaction is open any more, so every page is marked all-visible).
 * - Spot checks: the big partner's counters against a recursive walk of its subtree, the totals
 *   against the rows, and 300 random members' depth, root, leads_count and balances against
 *   their referrer and their rows.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { ensureDatabase, quoteIdent, runMigrations } from '../src/database/ensure-database';

export const SEED_FILE = resolve(__dirname, '.seed-large.json');
const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const DATABASE = process.env.BENCH_EMBED_DATABASE ?? 'bench_embed';
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1_000_000);
const LEADS = Number(process.env.BENCH_LEADS ?? 2_000_000);
const BONUSES = Number(process.env.BENCH_BONUSES ?? 3_000_000);
/**
 * Connections sharing the load. One more than the 2 cores: while one waits on I/O the others
 * compute, and a machine busy with other work still gives the seed its share.
 */
const WORKERS = Number(process.env.BENCH_SEED_CONNECTIONS ?? 3);
const SLUG = 'bench';
const ORIGIN = 'https://bench.example';
const TENANT_ID = 'org_01BENCH0000000000000000000';
/** Bumped whenever the data set's recipe changes, so --reuse rebuilds an older one. */
const RECIPE = 'v1';

/** Member index of the big partner; it joins right after the 10 founders, under founder 3. */
const BIG = 10;
const FOUNDERS = 10;
const BIG_SHARE = 0.13;
const ROOT_SHARE = 0.02;
const CHAIN_TARGET = 70;
const YEARS = 3;
const CHUNK = 250_000;

export interface SampleMember {
  user_id: string;
  service_user_id: string;
  depth: number;
  downline_count: number;
  depth_span: number;
  direct_referrals: number;
  leads_count: number;
  bonuses_count: number;
}

export interface SeedInfo {
  database_url: string;
  tenant: { id: string; slug: string; origin: string };
  recipe: string;
  counts: { members: number; leads: number; bonuses: number; member_balances: number };
  seed_seconds: number | null;
  phases: Record<string, number>;
  built_at: string;
  /** The partner with ≥ 100,000 members in its downline. */
  big_partner: SampleMember;
  /** An ordinary partner: a few dozen leads (more than one page) and bonuses, a small downline. */
  typical_partner: SampleMember;
  /** The partner with the most leads. */
  hot_partner: SampleMember;
}

/** A 26-character Crockford base32 body (digits only), so the ids look like `<prefix>_<ULID>`. */
const body = (sql: string) => `'BENCH' || lpad((${sql})::text, 21, '0')`;
const idOf = (prefix: string, index: number) => `${prefix}_BENCH${String(index).padStart(21, '0')}`;

type Log = (message: string) => void;

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Forest {
  parent: Int32Array;
  depth: Int32Array;
  root: Int32Array;
  downline: Int32Array;
  deepest: Int32Array;
}

/** The referral forest's shape; see the header. Parents always have a lower index. */
function drawForest(n: number): Forest {
  const random = mulberry32(20_260_521);
  const parent = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const root = new Int32Array(n);
  const inBig = new Uint8Array(n);
  const big = new Int32Array(n);
  const rest = new Int32Array(n);
  let bigCount = 0;
  let restCount = 0;
  for (let i = 0; i < Math.min(FOUNDERS, n); i++) {
    root[i] = i;
    rest[restCount++] = i;
  }
  parent[BIG] = 3;
  depth[BIG] = 1;
  root[BIG] = 3;
  inBig[BIG] = 1;
  big[bigCount++] = BIG;
  const chainEvery = Math.max(1, Math.floor((n * BIG_SHARE) / CHAIN_TARGET));
  let chainTip = BIG;
  let bigJoins = 0;

  const pick = (list: Int32Array, count: number): number => {
    const q = random();
    if (q < 0.5) {
      // Preferential attachment: the referrer of a random member of the same community.
      const j = list[Math.floor(random() * count)];
      const p = parent[j];
      return p >= 0 && inBig[p] === inBig[j] ? p : j;
    }
    if (q < 0.9) return list[Math.floor(random() * count)];
    return list[Math.max(0, count - 1 - Math.floor(random() * 30))];
  };

  for (let i = BIG + 1; i < n; i++) {
    let p: number;
    if (random() < BIG_SHARE) {
      bigJoins++;
      if (bigJoins % chainEvery === 0) {
        p = chainTip;
        chainTip = i;
      } else {
        p = pick(big, bigCount);
      }
    } else {
      p = random() < ROOT_SHARE ? -1 : pick(rest, restCount);
    }
    parent[i] = p;
    if (p >= 0) {
      depth[i] = depth[p] + 1;
      root[i] = root[p];
      inBig[i] = inBig[p];
    } else {
      root[i] = i;
    }
    if (inBig[i]) big[bigCount++] = i;
    else rest[restCount++] = i;
  }
  const downline = new Int32Array(n);
  const deepest = Int32Array.from(depth);
  for (let i = n - 1; i > 0; i--) {
    const p = parent[i];
    if (p < 0) continue;
    downline[p] += downline[i] + 1;
    if (deepest[i] > deepest[p]) deepest[p] = deepest[i];
  }
  return { parent, depth, root, downline, deepest };
}

async function connect(url: string, load = false): Promise<Client> {
  const client = new Client({ connectionString: url, application_name: 'bench-seed-large' });
  await client.connect();
  if (load) {
    await client.query(`SET session_replication_role = replica`);
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET work_mem = '512MB'`);
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query(`SET max_parallel_maintenance_workers = 0`);
    await client.query(`SET jit = off`);
  }
  return client;
}

/** CPU seconds a backend has used so far (Linux; 0 elsewhere): what a task cost, whatever else runs. */
function backendCpu(db: Client): number {
  const pid = (db as unknown as { processID?: number }).processID;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const LOADED_TABLES = ['service_users', 'members', 'leads', 'bonuses', 'member_balances'];

async function isComplete(): Promise<boolean> {
  const admin = await connect(`${SERVER}/postgres`);
  try {
    const { rows } = await admin.query(
      `SELECT shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname = $1`,
      [DATABASE],
    );
    return rows[0]?.note === marker();
  } finally {
    await admin.end();
  }
}

function marker(): string {
  return `seed-large ${RECIPE} complete: ${MEMBERS} members, ${LEADS} leads, ${BONUSES} bonuses`;
}

export async function dropSeed(log: Log = () => undefined): Promise<void> {
  const admin = await connect(`${SERVER}/postgres`);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(DATABASE)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  rmSync(SEED_FILE, { force: true });
  log(`dropped database ${DATABASE} and ${SEED_FILE}`);
}

interface Draws {
  /** Per lead: the referrer's member index. */
  leadMember: Int32Array;
  /** Per member: its leads (what trg_leads_count keeps in members.leads_count). */
  leadsCount: Int32Array;
  /** Per bonus: member index, amount, and `status | source << 2 | usd << 4 | tier << 5`. */
  bonusMember: Int32Array;
  bonusAmount: Int32Array;
  bonusCode: Int32Array;
  /** Per member and currency (index 2m: RUB, 2m+1: USD): what trg_bonuses_balance keeps. */
  pending: Float64Array;
  cleared: Float64Array;
  hasBalance: Uint8Array;
}

const STATUSES = ['pending', 'approved', 'rejected', 'reversed'];
const SOURCES = ['conversion', 'lead', 'manual'];

/**
 * Who gets each lead and bonus, and the bonus amounts and statuses: `floor(N · u³)` skews both
 * towards early members (member 0 gets ~1 %). The kept counters follow from the same draw.
 */
function drawActivity(n: number): Draws {
  const random = mulberry32(19_790_214);
  const skewed = () => Math.min(n - 1, Math.floor(n * random() ** 3));
  const leadMember = new Int32Array(LEADS);
  const leadsCount = new Int32Array(n);
  for (let k = 0; k < LEADS; k++) {
    const m = skewed();
    leadMember[k] = m;
    leadsCount[m]++;
  }
  const bonusMember = new Int32Array(BONUSES);
  const bonusAmount = new Int32Array(BONUSES);
  const bonusCode = new Int32Array(BONUSES);
  const pending = new Float64Array(2 * n);
  const cleared = new Float64Array(2 * n);
  const hasBalance = new Uint8Array(2 * n);
  for (let k = 0; k < BONUSES; k++) {
    const m = skewed();
    const rs = random();
    const source = rs < 0.7 ? 0 : rs < 0.9 ? 1 : 2;
    const amount =
      source === 0
        ? 1000 + Math.floor(random() * 499_000)
        : source === 1
          ? 5000
          : 10_000 + Math.floor(random() * 90_000);
    const rq = random();
    const status = rq < 0.2 ? 0 : rq < 0.85 ? 1 : rq < 0.95 ? 2 : 3;
    const usd = random() < 0.03 ? 1 : 0;
    const tier = source === 0 && random() >= 0.5 ? 1 + Math.floor(random() * 4) : 0;
    bonusMember[k] = m;
    bonusAmount[k] = amount;
    bonusCode[k] = status | (source << 2) | (usd << 4) | (tier << 5);
    const account = 2 * m + usd;
    hasBalance[account] = 1;
    if (status === 0) pending[account] += amount;
    if (status === 1) cleared[account] += amount;
  }
  return {
    leadMember,
    leadsCount,
    bonusMember,
    bonusAmount,
    bonusCode,
    pending,
    cleared,
    hasBalance,
  };
}

interface Task {
  name: string;
  after: string[];
  run: (db: Client) => Promise<unknown>;
}

/**
 * Runs `tasks` on the given connections, each task once all of its `after` are done, the first
 * ready task in list order first.
 */
async function runTasks(
  tasks: Task[],
  connections: Client[],
  done: (task: Task, seconds: number, cpu: number, worker: number) => void,
): Promise<void> {
  const finished = new Set<string>();
  const pending = [...tasks];
  let failed: Error | undefined;
  let waiting: (() => void)[] = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resolve of woken) resolve();
  };
  const worker = async (db: Client, index: number) => {
    while (pending.length && failed === undefined) {
      const at = pending.findIndex((t) => t.after.every((a) => finished.has(a)));
      if (at < 0) {
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const [task] = pending.splice(at, 1);
      const t0 = Date.now();
      const cpu0 = backendCpu(db);
      try {
        await task.run(db);
      } catch (error) {
        failed = new Error(`${task.name}: ${(error as Error).message}`);
        wake();
        return;
      }
      finished.add(task.name);
      done(task, (Date.now() - t0) / 1000, backendCpu(db) - cpu0, index);
      wake();
    }
    wake();
  };
  await Promise.all(connections.map((db, i) => worker(db, i)));
  if (failed !== undefined) throw failed;
}

/**
 * Builds the data set (or keeps a complete one with `reuse`) and writes bench/.seed-large.json.
 */
export async function seedLarge(options: { reuse?: boolean; log?: Log } = {}): Promise<SeedInfo> {
  const log = options.log ?? ((message: string) => process.stdout.write(`${message}\n`));
  const url = `${SERVER}/${DATABASE}`;
  const started = Date.now();
  const phases: Record<string, number> = {};
  let cpuTotal = 0;
  const record = (name: string, seconds: number, cpu?: number) => {
    phases[name] = (phases[name] ?? 0) + seconds;
    if (cpu !== undefined) cpuTotal += cpu;
    log(
      `  ${name.padEnd(52)} ${seconds.toFixed(1).padStart(6)} s` +
        (cpu !== undefined ? `  (PostgreSQL CPU ${cpu.toFixed(1)} s)` : ''),
    );
  };
  const phase = async <T>(name: string, work: () => T | Promise<T>): Promise<T> => {
    const t0 = Date.now();
    const result = await work();
    record(name, (Date.now() - t0) / 1000);
    return result;
  };

  if (options.reuse && (await isComplete())) {
    const applied = await runMigrations(url);
    if (applied.length) log(`applied pending migrations to ${DATABASE}: ${applied.join(', ')}`);
    log(`reusing the complete data set in ${DATABASE} (seed-large --drop to rebuild)`);
    const info = await describe(url, null, {});
    writeFileSync(SEED_FILE, JSON.stringify(info, null, 2) + '\n');
    return info;
  }

  log(
    `seeding ${DATABASE}: ${MEMBERS.toLocaleString('en')} members, ${LEADS.toLocaleString('en')} leads, ` +
      `${BONUSES.toLocaleString('en')} bonuses`,
  );
  await phase('drop, create and migrate the database', async () => {
    await dropSeed();
    await ensureDatabase(url);
    await runMigrations(url);
  });
  const forest = await phase('draw the referral forest (in memory)', () => drawForest(MEMBERS));
  const draws = await phase('draw leads and bonuses (in memory)', () => drawActivity(MEMBERS));

  const workers: Client[] = [];
  for (let i = 0; i < WORKERS; i++) workers.push(await connect(url, true));
  const [a] = workers;
  try {
    const now = Math.floor(Date.now() / 1000);
    const t0 = now - YEARS * 365 * 86_400;
    const step = (now - t0) / MEMBERS;
    /** When member `m` joined (epoch seconds): strictly increasing with the index. */
    const joined = (m: string) => `(${t0} + (${m}) * ${step})`;
    /** A moment between member `m`'s joining and now. */
    const since = (m: string) => `to_timestamp(${joined(m)} + random() * (${now} - ${joined(m)}))`;
    const ints = (xs: Int32Array | Float64Array, from: number, to: number) =>
      `{${xs.subarray(from, to).join(',')}}`;

    const dropped = await phase('tenant; drop the plain indexes; no autovacuum', async () => {
      await a.query(
        `INSERT INTO tenants (id, slug, display_name, allowed_origins, currency, locale, program)
         VALUES ($1, $2, 'Bench', $3, 'RUB', 'ru-RU', $4)`,
        [
          TENANT_ID,
          SLUG,
          [ORIGIN],
          JSON.stringify({
            lead_bonus_kopecks: 5000,
            tiers: [
              { tier: 'referrer', percent_bp: 1000 },
              { tier: 'upline_1', percent_bp: 300 },
              { tier: 'upline_2', percent_bp: 200 },
              { tier: 'upline_3', percent_bp: 100 },
              { tier: 'upline_4', percent_bp: 50 },
            ],
            grace_period_hours: 336,
          }),
        ],
      );
      // Its default group (docs/partners.md): the tenants trigger that makes it is off here.
      await a.query(
        `INSERT INTO groups (tenant_id, id, slug, name) VALUES ($1, $2, 'default', 'Default')
         ON CONFLICT DO NOTHING`,
        [TENANT_ID, idOf('grp', 0)],
      );
      // Indexes that back no constraint. The primary keys and unique constraints stay: rows go
      // in key order, so they only ever append. The others are rebuilt from their own
      // definitions (pg_get_indexdef) once their table is loaded.
      const { rows } = await a.query<{ name: string; def: string; table: string }>(
        `SELECT quote_ident(ic.relname) AS name, pg_get_indexdef(i.indexrelid) AS def,
                t.relname AS table
           FROM pg_index i
           JOIN pg_class ic ON ic.oid = i.indexrelid
           JOIN pg_class t ON t.oid = i.indrelid
          WHERE t.relnamespace = 'public'::regnamespace AND t.relname = ANY($1)
            AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
          ORDER BY t.relname, ic.relname`,
        [LOADED_TABLES],
      );
      for (const r of rows) await a.query(`DROP INDEX ${r.name}`);
      for (const t of LOADED_TABLES) {
        await a.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
      }
      return rows;
    });

    const chunks = (total: number, size: number) =>
      Array.from({ length: Math.ceil(total / size) }, (_, k) => ({
        k,
        from: k * size,
        to: Math.min(total, (k + 1) * size),
      }));
    const LEAD_CHUNK = 500_000;
    const tasks: Task[] = [];
    const load: Record<string, string[]> = {};
    /** A chunk's insert: `setseed(seed)` first, so that its random() draws are the same each run. */
    const seeded = (name: string, seed: number, sql: string, params: () => unknown[]): Task => ({
      name,
      after: [],
      run: async (db) => {
        await db.query(`SELECT setseed(${seed})`);
        return db.query(sql, params());
      },
    });
    const add = (table: string, task: Task) => {
      tasks.push(task);
      (load[table] ??= []).push(task.name);
    };

    for (const { k, from, to } of chunks(BONUSES, LEAD_CHUNK)) {
      add(
        'bonuses',
        seeded(
          `bonuses ${from + 1}…${to}`,
          (0.5 + k) / 100,
          `INSERT INTO bonuses (tenant_id, id, member_id, service_user_id, amount_kopecks,
                                  currency, source_type, source_id, tier, status, reason, due_at,
                                  approved_at, rejected_at, reversed_at, created_at)
             SELECT '${TENANT_ID}', 'bns_' || ${body('n')}, 'mbr_' || ${body('m')},
                    'usr_' || ${body('m')}, amount,
                    CASE WHEN code & 16 <> 0 THEN 'USD' ELSE 'RUB' END,
                    source,
                    CASE source WHEN 'conversion' THEN 'cnv_' || ${body('n * 2 / 5')}
                                WHEN 'lead' THEN 'lead_' || ${body(`1 + floor(random() * ${LEADS})::int`)}
                                ELSE 'stf_' || ${body('n % 20')} END,
                    CASE WHEN source <> 'conversion' THEN NULL WHEN code >> 5 = 0 THEN 'referrer'
                         ELSE 'upline_' || (code >> 5) END,
                    status,
                    CASE WHEN source = 'manual' THEN 'Manual adjustment'
                         WHEN status = 'rejected' THEN 'Fraud check failed'
                         WHEN status = 'reversed' THEN 'Order refunded' END,
                    c + interval '14 days',
                    CASE WHEN status IN ('approved', 'reversed') THEN c + interval '14 days' END,
                    CASE WHEN status = 'rejected' THEN c + interval '2 days' END,
                    CASE WHEN status = 'reversed' THEN c + interval '20 days' END,
                    c
               FROM (SELECT (${from} + u.k)::int AS n, u.m, u.amount, u.code,
                            ('{${STATUSES.join(',')}}'::text[])[(u.code & 3) + 1] AS status,
                            ('{${SOURCES.join(',')}}'::text[])[((u.code >> 2) & 3) + 1] AS source,
                            ${since('u.m')} AS c
                       FROM unnest($1::int[], $2::int[], $3::int[])
                              WITH ORDINALITY AS u(m, amount, code, k)) x`,
          () => [
            ints(draws.bonusMember, from, to),
            ints(draws.bonusAmount, from, to),
            ints(draws.bonusCode, from, to),
          ],
        ),
      );
    }
    for (const { k, from, to } of chunks(LEADS, LEAD_CHUNK)) {
      add(
        'leads',
        seeded(
          `leads ${from + 1}…${to}`,
          (0.5 + k) / 50,
          `INSERT INTO leads (tenant_id, id, referrer_member_id, referrer_user_id, contact_name,
                                contact_email, contact_phone, status, source, created_at, updated_at)
             SELECT '${TENANT_ID}', 'lead_' || ${body('n')}, 'mbr_' || ${body('m')},
                    'usr_' || ${body('m')}, 'Lead ' || n,
                    CASE WHEN r1 < 0.8 THEN 'lead' || n || '@example.org' END,
                    CASE WHEN r1 >= 0.5 THEN '+7900' || lpad((n % 10000000)::text, 7, '0') END,
                    CASE WHEN r2 < 0.30 THEN 'new' WHEN r2 < 0.50 THEN 'processed'
                         WHEN r2 < 0.75 THEN 'converted' ELSE 'rejected' END,
                    CASE WHEN r3 < 0.6 THEN 'federation' WHEN r3 < 0.85 THEN 'lead_form'
                         ELSE 'referral_link' END,
                    c, least(to_timestamp(${now}), c + r3 * interval '5 days')
               FROM (SELECT (${from} + u.k)::int AS n, u.m, random() AS r1, random() AS r2,
                            random() AS r3, ${since('u.m')} AS c
                       FROM unnest($1::int[]) WITH ORDINALITY AS u(m, k)) x`,
          () => [ints(draws.leadMember, from, to)],
        ),
      );
    }
    for (const { k, from, to } of chunks(MEMBERS, CHUNK)) {
      add(
        'members',
        seeded(
          `members ${from + 1}…${to} (+ counters)`,
          (0.5 + k) / 20,
          `INSERT INTO members (tenant_id, id, service_user_id, external_id, email, full_name,
                                  role, referrer_member_id, depth, root_member_id, is_active,
                                  claim_required, downline_count, deepest_depth, leads_count,
                                  clicks_count, created_at, updated_at, group_id)
             SELECT '${TENANT_ID}', 'mbr_' || ${body('i')}, 'usr_' || ${body('i')},
                    'ext-' || lpad(i::text, 8, '0'),
                    CASE WHEN r1 < 0.6 THEN 'member' || i || '@example.org' END,
                    CASE WHEN r1 < 0.9 THEN 'Member ' || i END,
                    CASE WHEN r2 < 0.95 THEN 'partner' WHEN r2 < 0.99 THEN 'ambassador'
                         ELSE 'leader' END,
                    CASE WHEN parent >= 0 THEN 'mbr_' || ${body('parent')} END,
                    depth, 'mbr_' || ${body('root')}, r3 >= 0.02, r3 < 0.42,
                    downline, deepest, leads, floor(leads * 6 * r2)::int,
                    to_timestamp(${joined('i')}), to_timestamp(${joined('i')}),
                    (SELECT id FROM groups WHERE tenant_id = '${TENANT_ID}' AND slug = 'default')
               FROM (SELECT (${from} + u.k - 1)::int AS i, u.*, random() AS r1, random() AS r2,
                            random() AS r3
                       FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[],
                                   $6::int[])
                              WITH ORDINALITY AS u(parent, depth, root, downline, deepest, leads, k)
                    ) x`,
          () => [
            ints(forest.parent, from, to),
            ints(forest.depth, from, to),
            ints(forest.root, from, to),
            ints(forest.downline, from, to),
            ints(forest.deepest, from, to),
            ints(draws.leadsCount, from, to),
          ],
        ),
      );
    }
    add('service_users', {
      name: 'service_users (generate_series)',
      after: [],
      run: (db) =>
        db.query(
          `INSERT INTO service_users (id, created_at)
           SELECT 'usr_' || ${body('i')}, to_timestamp(${joined('i')})
             FROM generate_series(0, ${MEMBERS - 1}) AS i`,
        ),
    });
    add('member_balances', {
      name: 'member_balances (summed in memory)',
      after: [],
      run: async (db) => {
        const member: number[] = [];
        const usd: number[] = [];
        const pendingSum: number[] = [];
        const clearedSum: number[] = [];
        for (let account = 0; account < 2 * MEMBERS; account++) {
          if (!draws.hasBalance[account]) continue;
          member.push(account >> 1);
          usd.push(account & 1);
          pendingSum.push(draws.pending[account]);
          clearedSum.push(draws.cleared[account]);
        }
        await db.query(
          `INSERT INTO member_balances (tenant_id, member_id, currency, pending_kopecks,
                                        cleared_kopecks)
           SELECT '${TENANT_ID}', 'mbr_' || ${body('m')}, CASE WHEN usd = 1 THEN 'USD' ELSE 'RUB' END,
                  p, c
             FROM unnest($1::int[], $2::int[], $3::bigint[], $4::bigint[]) AS u(m, usd, p, c)`,
          [
            `{${member.join(',')}}`,
            `{${usd.join(',')}}`,
            `{${pendingSum.join(',')}}`,
            `{${clearedSum.join(',')}}`,
          ],
        );
      },
    });
    // Each table's indexes as soon as it is loaded.
    const indexing: Task[] = dropped.map((index) => ({
      name: `index ${index.name}`,
      after: load[index.table] ?? [],
      run: (db) => db.query(index.def),
    }));
    // Ready index builds before more loading: the bonuses' are the critical path.
    const ordered = [
      ...tasks.filter((t) => t.name.startsWith('bonuses')),
      ...indexing,
      ...tasks.filter((t) => !t.name.startsWith('bonuses')),
    ];
    await phase(`load and index (${WORKERS} connections)`, () =>
      runTasks(ordered, workers, (task, seconds, cpu, worker) =>
        record(`  [${'abcdefgh'[worker]}] ${task.name}`, seconds, cpu),
      ),
    );
    // Only once nothing else runs: a VACUUM beside an open load transaction could not mark the
    // pages all-visible, and the index-only scans (a leads list's total, a tree level's ids)
    // would check the heap for every row, as they never do on a settled database.
    await phase(`VACUUM ANALYZE (${WORKERS} connections)`, () =>
      runTasks(
        [...LOADED_TABLES]
          .sort((x, y) => (x === 'bonuses' ? -1 : y === 'bonuses' ? 1 : 0))
          .map((table) => ({
            name: `VACUUM ANALYZE ${table}`,
            after: [],
            run: (db: Client) => db.query(`VACUUM ANALYZE ${table}`),
          })),
        workers,
        (task, seconds, cpu, worker) =>
          record(`  [${'abcdefgh'[worker]}] ${task.name}`, seconds, cpu),
      ),
    );
    await phase('re-enable autovacuum; ANALYZE tenants', async () => {
      for (const t of LOADED_TABLES) await a.query(`ALTER TABLE ${t} RESET (autovacuum_enabled)`);
      await a.query('ANALYZE tenants');
    });
    await phase('spot checks', () => validate(a, forest, draws));
    await a.query(`COMMENT ON DATABASE ${quoteIdent(DATABASE)} IS '${marker()}'`);
  } finally {
    for (const w of workers) await w.end();
  }

  const seconds = (Date.now() - started) / 1000;
  const info = await describe(url, seconds, phases);
  writeFileSync(SEED_FILE, JSON.stringify(info, null, 2) + '\n');
  log(
    `seed done in ${seconds.toFixed(1)} s (target < 300 s: ${seconds < 300 ? 'PASS' : 'FAIL'}), ` +
      `PostgreSQL CPU ${cpuTotal.toFixed(0)} s on ${WORKERS} connections, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; samples in ${SEED_FILE}`,
  );
  return info;
}

/**
 * Checks the kept counters against what a scan says (for the big partner, the busiest member and
 * 300 random ones) and the totals against the rows.
 */
async function validate(db: Client, forest: Forest, draws: Draws): Promise<void> {
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
    (await db.query(sql, params)).rows[0] as T;
  const fail = (what: string) => {
    throw new Error(`seed validation failed: ${what}`);
  };
  const counts = await one<{ m: number; l: number; b: number }>(
    `SELECT (SELECT count(*) FROM members WHERE tenant_id = $1)::int AS m,
            (SELECT count(*) FROM leads WHERE tenant_id = $1)::int AS l,
            (SELECT count(*) FROM bonuses WHERE tenant_id = $1)::int AS b`,
    [TENANT_ID],
  );
  if (counts.m !== MEMBERS || counts.l !== LEADS || counts.b !== BONUSES) {
    fail(`row counts ${JSON.stringify(counts)}`);
  }

  // The big partner: its kept counters against a recursive walk of its subtree.
  const big = idOf('mbr', BIG);
  const walk = await one<{ n: number; deepest: number }>(
    `WITH RECURSIVE sub AS (
       SELECT id, depth FROM members WHERE tenant_id = $1 AND referrer_member_id = $2
       UNION ALL
       SELECT m.id, m.depth FROM sub JOIN members m
         ON m.tenant_id = $1 AND m.referrer_member_id = sub.id)
     SELECT count(*)::int AS n, max(depth)::int AS deepest FROM sub`,
    [TENANT_ID, big],
  );
  const kept = await one<{ downline_count: number; deepest_depth: number; depth: number }>(
    `SELECT downline_count, deepest_depth, depth FROM members WHERE tenant_id = $1 AND id = $2`,
    [TENANT_ID, big],
  );
  if (kept.downline_count !== walk.n) fail(`big downline ${kept.downline_count} ≠ ${walk.n}`);
  if (kept.deepest_depth !== walk.deepest) fail(`big deepest ${kept.deepest_depth}`);
  if (MEMBERS >= 1_000_000 && walk.n < 100_000) fail(`big downline only ${walk.n}`);
  if (MEMBERS >= 1_000_000 && kept.deepest_depth - kept.depth < 50) fail('big chain < 50 deep');

  // Every member is counted once in its root's downline; the totals match the rows.
  const totals = await one<{
    roots: number;
    under_roots: number;
    leads_count: number;
    pending: string;
    cleared: string;
  }>(
    `SELECT count(*) FILTER (WHERE referrer_member_id IS NULL)::int AS roots,
            (sum(downline_count) FILTER (WHERE referrer_member_id IS NULL))::int AS under_roots,
            sum(leads_count)::int AS leads_count,
            (SELECT sum(pending_kopecks) FROM member_balances WHERE tenant_id = $1)::text AS pending,
            (SELECT sum(cleared_kopecks) FROM member_balances WHERE tenant_id = $1)::text AS cleared
       FROM members WHERE tenant_id = $1`,
    [TENANT_ID],
  );
  if (totals.roots + totals.under_roots !== MEMBERS) fail(`roots ${JSON.stringify(totals)}`);
  if (totals.leads_count !== LEADS) fail(`sum(leads_count) ${totals.leads_count}`);
  const sums = await one<{ pending: string; cleared: string }>(
    `SELECT sum(amount_kopecks) FILTER (WHERE status = 'pending')::text AS pending,
            sum(amount_kopecks) FILTER (WHERE status = 'approved')::text AS cleared
       FROM bonuses WHERE tenant_id = $1`,
    [TENANT_ID],
  );
  if (sums.pending !== totals.pending || sums.cleared !== totals.cleared) {
    fail(`balances ${JSON.stringify(totals)} ≠ bonuses ${JSON.stringify(sums)}`);
  }

  // Member by member: depth and root against the referrer, leads_count and member_balances
  // against the rows, the counters against the drawn forest.
  const random = mulberry32(7);
  const sample = [0, BIG, MEMBERS - 1];
  for (let k = 0; k < 300; k++) sample.push(Math.floor(random() * MEMBERS));
  const { rows } = await db.query<{
    id: string;
    depth: number;
    root_member_id: string;
    downline_count: number;
    deepest_depth: number;
    leads_count: number;
    parent_ok: boolean;
    leads: number;
    balances_ok: boolean;
  }>(
    `SELECT m.id, m.depth, m.root_member_id, m.downline_count, m.deepest_depth, m.leads_count,
            (p.id IS NULL AND m.depth = 0 AND m.root_member_id = m.id)
              OR (m.depth = p.depth + 1 AND m.root_member_id = p.root_member_id
                  AND m.created_at > p.created_at) AS parent_ok,
            (SELECT count(*)::int FROM leads l
              WHERE l.tenant_id = m.tenant_id AND l.referrer_member_id = m.id) AS leads,
            NOT EXISTS (
              SELECT 1 FROM (SELECT currency,
                                    coalesce(sum(amount_kopecks) FILTER (WHERE status = 'pending'), 0) AS p,
                                    coalesce(sum(amount_kopecks) FILTER (WHERE status = 'approved'), 0) AS c
                               FROM bonuses b WHERE b.tenant_id = m.tenant_id AND b.member_id = m.id
                              GROUP BY currency) s
                FULL JOIN (SELECT * FROM member_balances mb
                            WHERE mb.tenant_id = m.tenant_id AND mb.member_id = m.id) mb
                  ON mb.currency = s.currency
               WHERE mb.pending_kopecks IS DISTINCT FROM s.p
                  OR mb.cleared_kopecks IS DISTINCT FROM s.c) AS balances_ok
       FROM members m
       LEFT JOIN members p ON p.tenant_id = m.tenant_id AND p.id = m.referrer_member_id
      WHERE m.tenant_id = $1 AND m.id = ANY($2)`,
    [TENANT_ID, sample.map((i) => idOf('mbr', i))],
  );
  for (const r of rows) {
    const i = Number(r.id.slice(9));
    if (!r.parent_ok) fail(`${r.id} disagrees with its referrer`);
    if (r.leads !== r.leads_count || r.leads_count !== draws.leadsCount[i]) {
      fail(`${r.id} leads_count ${r.leads_count}, ${r.leads} leads`);
    }
    if (!r.balances_ok) fail(`${r.id} member_balances differ from its bonuses`);
    if (r.downline_count !== forest.downline[i] || r.deepest_depth !== forest.deepest[i]) {
      fail(`${r.id} differs from the drawn forest`);
    }
  }
}

/** The sample members and figures the benchmark uses. */
async function describe(
  url: string,
  seconds: number | null,
  phases: Record<string, number>,
): Promise<SeedInfo> {
  const db = await connect(url);
  try {
    const sample = async (where: string, order: string): Promise<SampleMember> => {
      const { rows } = await db.query(
        `SELECT m.id AS user_id, m.service_user_id, m.depth, m.downline_count,
                m.deepest_depth - m.depth AS depth_span, m.leads_count,
                (SELECT count(*)::int FROM members c
                  WHERE c.tenant_id = m.tenant_id AND c.referrer_member_id = m.id)
                  AS direct_referrals,
                (SELECT count(*)::int FROM bonuses b
                  WHERE b.tenant_id = m.tenant_id AND b.member_id = m.id) AS bonuses_count
           FROM members m WHERE m.tenant_id = $1 AND ${where} ORDER BY ${order} LIMIT 1`,
        [TENANT_ID],
      );
      if (!rows.length) throw new Error(`no member matches ${where}`);
      return rows[0] as SampleMember;
    };
    const typicalWhere = `m.is_active AND m.leads_count BETWEEN 25 AND 60
        AND m.downline_count BETWEEN 30 AND 300 AND m.deepest_depth - m.depth BETWEEN 3 AND 8
        AND m.id >= '${idOf('mbr', Math.floor(MEMBERS / 200))}'
        AND (SELECT count(*) FROM members c
              WHERE c.tenant_id = m.tenant_id AND c.referrer_member_id = m.id) BETWEEN 3 AND 20
        AND (SELECT count(*) FROM bonuses b
              WHERE b.tenant_id = m.tenant_id AND b.member_id = m.id) >= 25`;
    const counts = (
      await db.query(
        `SELECT (SELECT count(*) FROM members)::int AS members,
                (SELECT count(*) FROM leads)::int AS leads,
                (SELECT count(*) FROM bonuses)::int AS bonuses,
                (SELECT count(*) FROM member_balances)::int AS member_balances`,
      )
    ).rows[0] as SeedInfo['counts'];
    return {
      database_url: url,
      tenant: { id: TENANT_ID, slug: SLUG, origin: ORIGIN },
      recipe: RECIPE,
      counts,
      seed_seconds: seconds,
      phases,
      built_at: new Date().toISOString(),
      big_partner: await sample(`m.id = '${idOf('mbr', BIG)}'`, 'm.id'),
      typical_partner: await sample(typicalWhere, 'm.id'),
      hot_partner: await sample('true', 'm.leads_count DESC, m.id'),
    };
  } finally {
    await db.end();
  }
}

if (require.main === module) {
  const args = new Set(process.argv.slice(2));
  const run = args.has('--drop')
    ? dropSeed((m) => process.stdout.write(`${m}\n`))
    : seedLarge({ reuse: args.has('--reuse') }).then((info) => {
        process.stdout.write(
          `big partner ${info.big_partner.user_id}: downline ${info.big_partner.downline_count}, ` +
            `${info.big_partner.depth_span} levels deep, ${info.big_partner.direct_referrals} direct\n` +
            `typical partner ${info.typical_partner.user_id}: ${info.typical_partner.leads_count} leads, ` +
            `${info.typical_partner.bonuses_count} bonuses, downline ${info.typical_partner.downline_count}\n` +
            `hot partner ${info.hot_partner.user_id}: ${info.hot_partner.leads_count} leads, ` +
            `${info.hot_partner.bonuses_count} bonuses\n`,
        );
      });
  run.then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`seed-large failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
