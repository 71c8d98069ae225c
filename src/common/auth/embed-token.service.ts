import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { UnauthorizedError } from '../errors/domain-error';

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
 * The popup's bearer JWT (SPEC 5): HS256 only, `typ: JWT`, issuer PUBLIC_BASE_URL, audience
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

  verify(token: string): EmbedClaims {
    try {
      const claims = this.jwt.verify<EmbedClaims>(token, {
        secret: this.config.jwtSecret,
        algorithms: ['HS256'],
        issuer: this.config.publicBaseUrl,
        audience: EMBED_AUDIENCE,
      });
      if (typeof claims.tid !== 'string' || typeof claims.sub !== 'string')
        throw new Error('claims');
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
