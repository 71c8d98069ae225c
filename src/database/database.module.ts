import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source';
import { ReplicaReads } from './replica-reads';
import { TransactionHost } from './transaction-host';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        dataSourceOptions(config.databaseUrl, {
          size: config.databasePoolSize,
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          statementTimeoutMs: config.databaseStatementTimeoutMs,
        }),
    }),
  ],
  providers: [TransactionHost, ReplicaReads],
  exports: [TransactionHost, ReplicaReads],
})
export class DatabaseModule {}
