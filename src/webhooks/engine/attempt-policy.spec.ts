import type { DeliveryStatus } from '../webhook-delivery.entity';
import { type AttemptOutcome, decideAttempt } from './attempt-policy';

/** The defaults of WEBHOOK_RETRY_DELAYS_MS: 30 s, 5 min, 30 min, 4 h, 24 h (six attempts). */
const S = [30_000, 300_000, 1_800_000, 14_400_000, 86_400_000];
const NOW = 1_800_000_000_000;

type Row = [
  attempt: number,
  answer: 'ok' | 'failed',
  kind: 'event' | 'test' | 'replay',
  before: DeliveryStatus,
  delays: number[],
  status: DeliveryStatus,
  outcome: AttemptOutcome,
  retryInMs: number | null,
  deadLetter: boolean,
];

// prettier-ignore
const TABLE: Row[] = [
  // attempt answer    kind      before       delays         → status      outcome          retry in     dead letter
  [1,       'ok',     'event',  'pending',   S,               'delivered', 'delivered',     null,        false],
  [4,       'ok',     'event',  'pending',   S,               'delivered', 'delivered',     null,        false],
  [1,       'failed', 'event',  'pending',   S,               'pending',   'retry',         30_000,      false],
  [2,       'failed', 'event',  'pending',   S,               'pending',   'retry',         300_000,     false],
  [3,       'failed', 'event',  'pending',   S,               'pending',   'retry',         1_800_000,   false],
  [4,       'failed', 'event',  'pending',   S,               'pending',   'retry',         14_400_000,  false],
  [5,       'failed', 'event',  'pending',   S,               'pending',   'retry',         86_400_000,  false],
  [6,       'failed', 'event',  'pending',   S,               'dead',      'dead',          null,        true],
  [9,       'failed', 'event',  'pending',   S,               'dead',      'dead',          null,        true],
  // Operator delays: one more attempt than delays.
  [2,       'failed', 'event',  'pending',   [1000, 2000],    'pending',   'retry',         2000,        false],
  [3,       'failed', 'event',  'pending',   [1000, 2000],    'dead',      'dead',          null,        true],
  [1,       'failed', 'event',  'pending',   [],              'dead',      'dead',          null,        true],
  // The test event: one attempt, never retried, never in the audit log.
  [1,       'ok',     'test',   'pending',   S,               'delivered', 'delivered',     null,        false],
  [1,       'failed', 'test',   'pending',   S,               'dead',      'dead',          null,        false],
  // A replay: one fresh attempt; a failed one leaves the delivery as it was.
  [7,       'ok',     'replay', 'dead',      S,               'delivered', 'replay_ok',     null,        false],
  [7,       'failed', 'replay', 'dead',      S,               'dead',      'replay_failed', null,        false],
  [2,       'failed', 'replay', 'dead',      S,               'dead',      'replay_failed', null,        false],
  [2,       'ok',     'replay', 'delivered', S,               'delivered', 'replay_ok',     null,        false],
  [2,       'failed', 'replay', 'delivered', S,               'delivered', 'replay_failed', null,        false],
];

describe('decideAttempt: what follows an answered attempt', () => {
  it.each(TABLE)(
    'attempt %i %s (%s, was %s, delays %j) → %s, %s, retry in %p, dead letter %p',
    (attempt, answer, kind, before, delays, status, outcome, retryInMs, deadLetter) => {
      const decision = decideAttempt(
        {
          attempt,
          ok: answer === 'ok',
          replay: kind === 'replay',
          statusBefore: before,
          test: kind === 'test',
        },
        delays,
        NOW,
      );
      expect(decision).toEqual({
        status,
        outcome,
        ...(retryInMs === null ? {} : { retryInMs }),
        retryAt: retryInMs === null ? null : NOW + retryInMs,
        deadLetter,
      });
    },
  );
});
