import { Global, Module } from '@nestjs/common';
import { EventRetention } from './event-retention';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/** The transactional outbox every feature writes its events to; delivery is the webhooks module. */
@Global()
@Module({
  providers: [EventsRepository, EventsService, EventRetention],
  exports: [EventsService],
})
export class OutboxModule {}
