import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { UnauthorizedError } from '../common/errors/domain-error';

export const EMBED_AUDIENCE = 'embed';
export const EMBED_SCOPE = 'profile:read';
export const EMBED_TOKEN_TTL_SECONDS = 3600;

export interface EmbedClaims {
  iss: string;
  aud: string;
  sub: string;
  tid: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * The popup's bearer JWT (docs/embedding.md §4): HS256 only, `typ: JWT`, issuer PUBLIC_BASE_URL,
 * audience
 * `embed`, subject the member's surrogate id, `tid` the tenant, one hour. Verification pins the
 * algorithm, so `alg: none` and every other algorithm are refused.
 */
@Injectable()
export class EmbedTokenService {
  constructor(
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  issue(tenantId: string, memberId: string): { token: string; expiresAt: number } {
    const iat = Math.floor(Date.now() / 1000);
    const token = this.jwt.sign(
      { tid: tenantId, scope: EMBED_SCOPE, iat },
      {
        secret: this.config.jwtSecret,
        algorithm: 'HS256',
        header: { alg: 'HS256', typ: 'JWT' },
        issuer: this.config.publicBaseUrl,
        audience: EMBED_AUDIENCE,
        subject: memberId,
        expiresIn: EMBED_TOKEN_TTL_SECONDS,
        jwtid: randomUUID(),
      },
    );
    return { token, expiresAt: (iat + EMBED_TOKEN_TTL_SECONDS) * 1000 };
  }

  /**
   * The claims of a token this service issued, or 401. A right signature is not enough: every
   * claim `issue` writes must be there and as it writes it (jsonwebtoken itself lets a token
   * without `exp`, `iat` or `jti` live for ever), and the token may not claim to live longer
   * than an hour or to have been issued in the future.
   */
  verify(token: string): EmbedClaims {
    try {
      const claims = this.jwt.verify<Partial<Record<keyof EmbedClaims, unknown>>>(token, {
        secret: this.config.jwtSecret,
        algorithms: ['HS256'],
        issuer: this.config.publicBaseUrl,
        audience: EMBED_AUDIENCE,
        // Also requires `iat`; a token issued over an hour ago is expired whatever its `exp`.
        maxAge: EMBED_TOKEN_TTL_SECONDS,
      });
      if (!isEmbedClaims(claims, this.config.publicBaseUrl)) throw new Error('claims');
      return claims;
    } catch (error) {
      if ((error as { name?: string }).name === 'TokenExpiredError') {
        throw new UnauthorizedError(
          'token_expired',
          'The bearer token has expired; sign in again.',
        );
      }
      throw new UnauthorizedError('invalid_token', 'The bearer token is missing or not valid.');
    }
  }
}

/** Clock difference tolerated between the processes that issue and verify tokens. */
const CLOCK_SKEW_SECONDS = 60;

const nonEmpty = (value: unknown) => typeof value === 'string' && value.length > 0;
const seconds = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** Every claim the popup issues (docs/embedding.md §4), of the type and value `issue` gives it. */
function isEmbedClaims(
  claims: Partial<Record<keyof EmbedClaims, unknown>>,
  issuer: string,
): claims is EmbedClaims {
  const now = Math.floor(Date.now() / 1000);
  return (
    claims.iss === issuer &&
    claims.aud === EMBED_AUDIENCE &&
    claims.scope === EMBED_SCOPE &&
    nonEmpty(claims.sub) &&
    nonEmpty(claims.tid) &&
    nonEmpty(claims.jti) &&
    seconds(claims.iat) &&
    seconds(claims.exp) &&
    claims.iat <= now + CLOCK_SKEW_SECONDS &&
    claims.exp > claims.iat &&
    claims.exp - claims.iat <= EMBED_TOKEN_TTL_SECONDS
  );
}
