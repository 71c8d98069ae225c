/**
 * `npm run bench:import` (docs/import-export.md): 1,000,000 members with referrers, in random order,
 * imported through the real HTTP route (POST /admin/v1/tenants/:slug/imports, streamed), beside
 * the floor: a plain `COPY` of the same file into a bare table, in the same run and database.
 * Targets: the import under 2 minutes and within 4× the floor. Prints both, their ratio and the
 * peak RSS of this process (which runs the application too), and the CPU time the import took in
 * this process and in the PostgreSQL backends (the wall time is load-bound on a shared machine).
 * The file is generated streamed (only two typed arrays of a million integers are held) into the
 * OS temp directory.
 *
 * BENCH_IMPORT_MEMBERS changes the size (default 1,000,000).
 */
import { createReadStream, createWriteStream, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { machineLine, runBenchmark, verdict } from './harness';

const MEMBERS = Number(process.env.BENCH_IMPORT_MEMBERS ?? 1_000_000);
const TARGET_MS = 120_000;
const TARGET_RATIO = 4;

/** A deterministic PRNG (mulberry32), so every run imports the same network. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Member i is referred by a random earlier member (1 in 50 has none: several trees, depth about
 * ln n), and the rows are written in a random permutation: referrers mostly come after.
 */
async function writeFile(path: string, n: number): Promise<void> {
  const random = prng(21);
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++)
    parent[i] = i === 0 || random() < 0.02 ? -1 : Math.floor(random() * i);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  out.write('external_id,full_name,email,role,referrer_external_id,joined_at\n');
  let chunk = '';
  for (let k = 0; k < n; k++) {
    const i = order[k];
    const ref = parent[i] < 0 ? '' : `m${parent[i]}`;
    chunk += `m${i},Member ${i},m${i}@example.com,partner,${ref},2025-01-01T00:00:00Z\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

async function json(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Streams the file to the import route; answers the 202 body. */
function postFile(base: string, path: string, token: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'text/csv',
          'content-length': statSync(file).size,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          res.statusCode === 202 ? resolve(text) : reject(new Error(`${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), req).catch(reject);
  });
}

/**
 * CPU ticks (1/100 s) used so far by each PostgreSQL backend connected to this database, read
 * from /proc (PostgreSQL on this host, as the benchmarks assume); undefined where unreadable.
 */
async function backendCpu(pg: Client): Promise<Map<number, number> | undefined> {
  const { rows } = await pg.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`,
  );
  const ticks = new Map<number, number>();
  try {
    for (const { pid } of rows) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12])); // utime + stime
    }
  } catch {
    return undefined;
  }
  return ticks;
}

function mergeMax(
  into: Map<number, number> | undefined,
  more: Map<number, number> | undefined,
): Map<number, number> | undefined {
  if (!into || !more) return undefined;
  for (const [pid, ticks] of more) into.set(pid, Math.max(ticks, into.get(pid) ?? 0));
  return into;
}

runBenchmark({ name: 'import' }, async (bench) => {
  bench.log(machineLine());
  const file = join(tmpdir(), `bench-import-${bench.runId}.csv`);
  bench.onCleanup(() => rmSync(file, { force: true }));
  let at = Date.now();
  await writeFile(file, MEMBERS);
  const mib = statSync(file).size / 2 ** 20;
  bench.log(`generated ${MEMBERS} members (${mib.toFixed(1)} MiB) in ${Date.now() - at} ms`);

  // The floor: the same bytes into a bare table with COPY, nothing else.
  const pg = new Client({ connectionString: bench.databaseUrl });
  await pg.connect();
  bench.onCleanup(() => pg.end());
  await pg.query(
    `CREATE TABLE import_floor (external_id text, full_name text, email text, role text,
       referrer_external_id text, joined_at text)`,
  );
  at = Date.now();
  await pipeline(
    createReadStream(file, { highWaterMark: 1 << 20 }),
    pg.query(copyFrom(`COPY import_floor FROM STDIN WITH (FORMAT csv, HEADER true)`)),
  );
  const floorMs = Date.now() - at;
  bench.log(`floor: plain COPY of the file into a bare table: ${floorMs} ms`);
  await pg.query(`DROP TABLE import_floor`);

  const { base } = await bench.startApp();
  const tenant = await json(base, 'POST', '/admin/v1/tenants', bench.adminToken, {
    slug: `import-${bench.runId.replace(/_/g, '-')}`.slice(0, 60),
    display_name: 'Import benchmark',
    allowed_origins: ['https://import.example'],
  });
  const slug = tenant.slug as string;
  const cpuBefore = { node: process.cpuUsage(), pg: await backendCpu(pg) };
  at = Date.now();
  const accepted = JSON.parse(
    await postFile(base, `/admin/v1/tenants/${slug}/imports`, bench.adminToken, file),
  ) as { import_id: string };
  bench.log(`file staged (202) after ${Date.now() - at} ms`);
  let status: Record<string, unknown>;
  let pgCpuSeen: Map<number, number> | undefined = new Map();
  let phase = '';
  for (;;) {
    status = await json(
      base,
      'GET',
      `/admin/v1/tenants/${slug}/imports/${accepted.import_id}`,
      bench.adminToken,
    );
    if (status.phase !== phase)
      bench.log(`  phase ${(phase = status.phase as string)} at ${Date.now() - at} ms`);
    // Sampled as it goes: the pool closes idle connections (the staging one) before the end.
    pgCpuSeen = mergeMax(pgCpuSeen, await backendCpu(pg));
    if (status.status === 'succeeded' || status.status === 'failed') break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const importMs = Date.now() - at;
  const nodeCpuS =
    (process.cpuUsage(cpuBefore.node).user + process.cpuUsage(cpuBefore.node).system) / 1e6;
  const pgCpuAfter = mergeMax(pgCpuSeen, await backendCpu(pg));
  let pgCpuS: number | undefined;
  if (pgCpuAfter && cpuBefore.pg) {
    pgCpuS = 0;
    for (const [pid, ticks] of pgCpuAfter) pgCpuS += (ticks - (cpuBefore.pg.get(pid) ?? 0)) / 100;
  }
  if (status.status !== 'succeeded') {
    throw new Error(`import failed: ${JSON.stringify(status).slice(0, 2000)}`);
  }
  const [check] = (
    await pg.query(
      `SELECT count(*)::int AS members, max(depth) AS max_depth, sum(downline_count)::bigint AS links
         FROM members m JOIN tenants t ON t.id = m.tenant_id WHERE t.slug = $1`,
      [slug],
    )
  ).rows;
  bench.log(
    `imported ${check.members} members (created ${String(status.created)}), deepest depth ` +
      `${check.max_depth}, sum of downline counts ${check.links}`,
  );

  const ratio = importMs / floorMs;
  const rssMib = process.resourceUsage().maxRSS / 1024;
  console.log('');
  console.log(`members                       ${MEMBERS}`);
  console.log(
    `import (HTTP, streamed)       ${(importMs / 1000).toFixed(1)} s   target < ${TARGET_MS / 1000} s   ${verdict(importMs < TARGET_MS)}`,
  );
  console.log(`floor (plain COPY)            ${(floorMs / 1000).toFixed(1)} s`);
  console.log(
    `import / floor                ${ratio.toFixed(1)}×   target ≤ ${TARGET_RATIO}×   ${verdict(ratio <= TARGET_RATIO)}`,
  );
  console.log(`peak RSS of this process      ${rssMib.toFixed(0)} MiB (application included)`);
  // CPU time, which the machine's load does not stretch: wall time is load-bound on a shared host.
  console.log(
    `CPU time of the import        ${nodeCpuS.toFixed(1)} s Node, ` +
      (pgCpuS === undefined
        ? 'PostgreSQL not measured (not on this host)'
        : `${pgCpuS.toFixed(1)} s PostgreSQL backends`) +
      `; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
});
