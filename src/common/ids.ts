import { randomBytes, randomFillSync, createHash } from 'node:crypto';
import { monotonicFactory } from 'ulid';

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

/** Secret prefixes of README.md, "API overview"; 32 random bytes (256 bits) each. */
export type SecretKind = 'tk' | 'stf' | 'whsec';
export function newSecret(kind: SecretKind): string {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}

/** Tenant keys and staff tokens are stored only as this hash. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
