import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { TenantsModule } from '../tenants/tenants.module';
import { AccessGuard } from './access.guard';
import { AccessService } from './access.service';
import { AdminSessionsRepository } from './admin-sessions.repository';
import { AdminSessionsService } from './admin-sessions.service';
import { ERROR_HEADERS } from '../common/errors/problem.filter';
import { EmbedCorsMiddleware, EmbedErrorCors } from './embed-cors.middleware';
import { EmbedOriginPolicy } from './embed-origin';
import { EmbedTokenService } from './embed-token.service';

/**
 * Who may call what (docs/architecture.md, "Access"): AccessService resolves every credential
 * kind, the global AccessGuard applies each route's declarations, and the embed CORS middleware
 * answers preflights with the same Origin gate.
 */
@Global()
@Module({
  imports: [JwtModule.register({}), TenantsModule, DiscoveryModule],
  providers: [
    AccessService,
    AdminSessionsService,
    AdminSessionsRepository,
    EmbedOriginPolicy,
    EmbedTokenService,
    EmbedCorsMiddleware,
    { provide: ERROR_HEADERS, useClass: EmbedErrorCors },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [
    AccessService,
    AdminSessionsService,
    EmbedTokenService,
    EmbedOriginPolicy,
    EmbedCorsMiddleware,
    ERROR_HEADERS,
  ],
})
export class AccessModule {}
