import { signRef, verifyRef } from '../../src/members/signed-ref';
import { testEnv } from './test-env';

/**
 * The link's own ref for a click-stamped one (docs/fraud.md, "Click-stamped refs"), after checking
 * that the service signed it and that its click time is the last few minutes: what a test
 * compares once the click time, which differs on every click, is accounted for.
 */
export function unstampRef(ref: string): string {
  const secret = testEnv().REF_SIGNING_SECRET!;
  const tenantId = (
    JSON.parse(Buffer.from(ref.split('.')[0], 'base64url').toString('utf8')) as { t?: string }
  ).t;
  const claims = tenantId ? verifyRef(ref, secret, tenantId) : undefined;
  if (!claims) throw new Error(`not a ref the service signed: ${ref}`);
  if (claims.c === undefined || Math.abs(Date.now() - claims.c) > 5 * 60_000)
    throw new Error(`a ref without a recent click time: ${JSON.stringify(claims)}`);
  return signRef({ t: claims.t, r: claims.r, d: claims.d }, secret);
}

/** A redirect's Location with its click-stamped `ref` replaced by the link's own (see above). */
export function withoutClickTime(location: string): string {
  return location.replace(
    /([?&]ref=)([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/,
    (_, prefix: string, ref: string) => `${prefix}${unstampRef(ref)}`,
  );
}
