import { Global, Module } from '@nestjs/common';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/** The transactional outbox every feature writes its events to; delivery is the webhooks module. */
@Global()
@Module({ providers: [EventsRepository, EventsService], exports: [EventsService] })
export class OutboxModule {}
