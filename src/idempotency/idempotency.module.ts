import { Global, Module } from '@nestjs/common';
import { IdempotencyKeysService } from './idempotency-keys.service';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';

@Global()
@Module({
  providers: [IdempotencyRepository, IdempotencyInterceptor, IdempotencyKeysService],
  exports: [IdempotencyInterceptor, IdempotencyRepository, IdempotencyKeysService],
})
export class IdempotencyModule {}
