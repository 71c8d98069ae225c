import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MembersModule } from '../members/members.module';
import { ExportsController } from './exports.controller';
import { ExportsRepository } from './exports.repository';
import { ExportsService } from './exports.service';
import { ImportsController } from './imports.controller';
import { ImportSweepWorker } from './import-sweep.worker';
import { ImportsRepository } from './imports.repository';
import { ImportsService } from './imports.service';

/** Moving in and out (docs/import-export.md): member imports and CSV exports. */
@Module({
  imports: [AuditModule, MembersModule],
  controllers: [ImportsController, ExportsController],
  providers: [ImportsService, ImportsRepository, ExportsService, ExportsRepository],
  exports: [ImportsService, ExportsService],
})
export class TransferModule {}

/** Loaded by the worker role only: the sweep of abandoned imports (the CLI and API-only do not). */
@Module({ imports: [TransferModule], providers: [ImportSweepWorker] })
export class TransferWorkerModule {}
