import { ConflictError, NotFoundError, UnprocessableError } from '../common/errors/domain-error';

export class InsecureWebhookUrlError extends UnprocessableError {
  constructor() {
    super('insecure_webhook_url', 'The receiver URL must use https.');
  }
}

export class WebhookTargetForbiddenError extends UnprocessableError {
  constructor(
    host: string,
    why = 'resolves to a loopback, private, link-local or otherwise reserved address',
  ) {
    super('webhook_target_forbidden', `${host} ${why}.`);
  }
}

export class WebhookNotConfiguredError extends NotFoundError {
  constructor() {
    super('not_found', 'This tenant has no webhook endpoint yet; PUT …/webhook first.');
  }
}

export class EventNotFoundError extends NotFoundError {
  constructor(eventId: string) {
    super('event_not_found', `No webhook event "${eventId}" in this tenant.`);
  }
}

export class DeliveryStillPendingError extends ConflictError {
  constructor(eventId: string) {
    super(`Event "${eventId}" is still being retried; replay it once it is delivered or dead.`);
  }
}
