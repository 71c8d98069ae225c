import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source';
import { TransactionHost } from './transaction-host';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        dataSourceOptions(config.databaseUrl, config.databasePoolSize),
    }),
  ],
  providers: [TransactionHost],
  exports: [TransactionHost],
})
export class DatabaseModule {}
