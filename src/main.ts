import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { createApp } from './app.setup';
import { ConfigError, loadConfig } from './config/load-config';
import type { AppConfig } from './config/app-config';
import {
  checkDatabase,
  describeDatabaseError,
  ensureDatabase,
  runMigrations,
} from './database/ensure-database';
import { ReadinessService } from './health/readiness.service';
import { startWorkerHealthServer } from './health/worker-health.server';

/** Creates the database if needed and applies pending migrations (MIGRATIONS_RUN). */
export async function prepareDatabase(config: AppConfig, log: (message: string) => void) {
  if (!config.migrationsRun) return checkDatabase(config.databaseUrl);
  // MIGRATIONS_DATABASE_URL: a direct connection, for DATABASE_URL may be a transaction pooler.
  if (await ensureDatabase(config.migrationsDatabaseUrl)) log('Created the database');
  const applied = await runMigrations(config.migrationsDatabaseUrl);
  if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
}

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  try {
    await prepareDatabase(config, (message) => process.stdout.write(`${message}\n`));
  } catch (error) {
    const line = describeDatabaseError(
      error,
      config.migrationsRun ? config.migrationsDatabaseUrl : config.databaseUrl,
    );
    if (!line) throw error;
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }

  if (config.processRole === 'worker') {
    const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
      bufferLogs: true,
    });
    context.useLogger(context.get(Logger));
    context.enableShutdownHooks();
    if (config.workerHealthPort !== undefined) {
      await startWorkerHealthServer(context.get(ReadinessService), config.workerHealthPort);
      context
        .get(Logger)
        .log(`Worker health on :${config.workerHealthPort}/health/ready`, 'Bootstrap');
    }
    context.get(Logger).log('Worker started', 'Bootstrap');
    return;
  }
  const app = await createApp(config);
  await app.listen(config.port);
  app
    .get(Logger)
    .log(
      `Listening on ${config.publicBaseUrl} (role ${config.processRole}); API docs at ${config.publicBaseUrl}/docs`,
      'Bootstrap',
    );
}

if (require.main === module) {
  bootstrap().catch((error: unknown) => {
    process.stderr.write(`Start failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
