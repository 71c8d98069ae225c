import { randomBytes, randomFillSync, createHash } from 'node:crypto';
import { decodeTime, monotonicFactory } from 'ulid';

/**
 * Cryptographic random numbers in [0, 1) drawn a byte at a time from a pooled buffer: ulid takes
 * one per character (16 per id), and a system call each (its default) costs ~5 µs apiece.
 * byte / 256 is exactly uniform over ulid's 32 symbols.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
function pooledRandom(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] / 256;
}

/** Monotonic: ids made within one millisecond still sort in the order they were made. */
const ulid = monotonicFactory(pooledRandom);

/** Id prefixes of the API, `mbr_` being the tenant-scoped surrogate (README.md "Ids"). */
export const ID_PREFIX = {
  serviceUser: 'usr',
  member: 'mbr',
  lead: 'lead',
  offer: 'ofr',
  conversion: 'cnv',
  deeplink: 'dl',
  bonus: 'bns',
  event: 'evt',
  org: 'org',
  tenantKey: 'key',
  staffToken: 'stt',
  audit: 'aud',
  signInCode: 'sic',
  group: 'grp',
  application: 'apl',
  programVersion: 'prv',
  bounty: 'bty',
  notification: 'ntf',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${kind === 'serviceUser' ? timelessUlid() : ulid()}`;
}

/** ULID's alphabet (Crockford base32). */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * 128 random bits written as a ULID is written (26 characters, the first 0–7), with no timestamp
 * in them: for `usr_` ids, the person every tenant shares. A ULID's first ten characters are its
 * creation time, so a tenant upserting an email another tenant had verified would get back an id
 * older than its own call, and learn that the person is known elsewhere (docs/security.md). These ids
 * still pass every ULID-shaped check, and ids minted earlier stay valid; nothing orders by them.
 */
export function timelessUlid(): string {
  // From the pool above, as ULIDs are: an import mints a million (byte / 256 is uniform here too).
  let out = CROCKFORD[Math.floor(pooledRandom() * 8)];
  for (let i = 1; i < 26; i++) out += CROCKFORD[Math.floor(pooledRandom() * 32)];
  return out;
}

/**
 * A bare ULID (request ids). Always through the factory above: the package's own `ulid()` looks
 * for a random source on every call (~50 µs, more than a whole cached redirect).
 */
export function newUlid(): string {
  return ulid();
}

/**
 * A block of ULIDs for the database to write (a payout run's 100,000 payouts and their events):
 * its k-th id (k = 0, 1, …) is the block's first ULID with k added to the random part, which is
 * how the factory above makes ids within one millisecond, so they are ULIDs of the usual format,
 * in the order of k. SQL makes them (`ulidSql`) and Node can make the same (`ulidAt`), so a large
 * block never crosses the wire. The factory moves on to the next millisecond, so no id it makes
 * later falls inside the block (nor sorts before it).
 */
export interface UlidBlock {
  /** The ten characters of the block's time. */
  time: string;
  /** The random part's two halves, 40 bits each. */
  hi: number;
  lo: number;
}

const HALF = 2 ** 40;

export function reserveUlids(): UlidBlock {
  for (;;) {
    const first = ulid();
    ulid(decodeTime(first) + 1);
    const hi = decodeBase32(first.slice(10, 18));
    // Adding k to the low half carries at most 1 into the high one (2^-40: take another block).
    if (hi < HALF - 1) return { time: first.slice(0, 10), hi, lo: decodeBase32(first.slice(18)) };
  }
}

/** The block's k-th ULID, as `ulidSql` makes it. */
export function ulidAt(block: UlidBlock, k: number): string {
  const low = block.lo + k;
  return block.time + encodeBase32(block.hi + Math.floor(low / HALF)) + encodeBase32(low % HALF);
}

/**
 * SQL for the k-th ULID of a block: `time`, `hi` and `lo` are SQL for the block's fields (text,
 * bigint, bigint parameters), `k` an integer expression (0, 1, …).
 */
export function ulidSql(time: string, hi: string, lo: string, k: string): string {
  const low = `(${lo} + ${k})`;
  return `${time} || ${base32Sql(`(${hi} + (${low} >> 40))`)} || ${base32Sql(`(${low} & ${HALF - 1})`)}`;
}

/** Eight characters for 40 bits, as ULIDs write them. */
function base32Sql(value: string): string {
  const chars: string[] = [];
  for (let shift = 35; shift >= 0; shift -= 5)
    chars.push(`substr('${CROCKFORD}', ((${value} >> ${shift}) & 31)::int + 1, 1)`);
  return chars.join(' || ');
}

function decodeBase32(chars: string): number {
  let value = 0;
  for (const c of chars) value = value * 32 + CROCKFORD.indexOf(c);
  return value;
}

function encodeBase32(value: number): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = CROCKFORD[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/**
 * Secret prefixes of README.md, "API overview"; 32 random bytes (256 bits) each. Webhook secrets
 * (`whsec_`) are made by `newWebhookSecret()` (webhooks/webhook-signature.ts), in base64.
 */
export type SecretKind = 'tk' | 'stf';
export function newSecret(kind: SecretKind): string {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}

/** Tenant keys and staff tokens are stored only as this hash. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
