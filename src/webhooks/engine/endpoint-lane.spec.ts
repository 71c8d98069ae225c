import { EndpointLane, type LaneItem, type RecordEntry } from './endpoint-lane';
import type { ClaimOutcome } from './deliveries.types';

const settings = {
  cap: 4,
  maxPrefetch: 16,
  waitBudgetMs: 10_000,
  renewAfterMs: 7_000,
  noSlotsRetryMs: 1_000,
};
const items = (n: number, from = 0): LaneItem[] =>
  Array.from({ length: n }, (_, i) => ({ eventId: `evt_${from + i}`, replay: false }));
const claimed = (attempt = 1): ClaimOutcome => ({
  kind: 'claimed',
  claim: { attempt, eventType: 'lead.created', body: '{}', status: 'pending' },
});
const endpoint = {
  url: 'https://receiver.example/hook',
  enabled: true,
  secretSealed: 'sealed',
  previousSecretSealed: null,
  previousSecretExpiresAt: null,
};

/** A lane that holds `held` slots and has claimed `n` attempts (through one statement). */
function claimedLane(n: number, held = 4): EndpointLane {
  const lane = new EndpointLane('org_1', settings);
  lane.admit(items(n));
  const batch = lane.takeBatch(0, false)!;
  lane.applyBatch(
    batch,
    { held, endpoint },
    batch.claims.map(() => claimed()),
  );
  return lane;
}

/** Answers `ready` (by default: starts the next attempt and answers it at once). */
function answer(lane: EndpointLane, durationMs = 5, ready = lane.nextToSend()!): RecordEntry {
  const entry: RecordEntry = {
    input: {
      tenantId: 'org_1',
      eventId: ready.item.eventId,
      attempt: ready.claim.attempt,
      at: 0,
      statusCode: 200,
      durationMs,
      error: null,
      responseBody: null,
      replay: false,
      status: 'delivered',
      nextAttemptAt: null,
      deliveredAt: 0,
    },
    item: ready.item,
    result: { ok: true, statusCode: 200, durationMs, error: null, responseBody: null },
    outcome: 'delivered',
    deadLetter: false,
  };
  lane.answered(entry);
  return entry;
}

describe('EndpointLane', () => {
  it('drops a delivery that is already in the lane (duplicate jobs), but not its replay', () => {
    const lane = new EndpointLane('org_1', settings);
    expect(lane.admit(items(3))).toEqual([]);
    const again = lane.admit([...items(2), { eventId: 'evt_0', replay: true }]);
    expect(again.map((i) => i.eventId)).toEqual(['evt_0', 'evt_1']);
    expect(lane.pendingCount).toBe(4);
  });

  it('leases up to the cap it has work for and claims two per slot before the first answer', () => {
    const lane = new EndpointLane('org_1', settings);
    lane.admit(items(40));
    const batch = lane.takeBatch(0, false)!;
    expect(batch.lease).toEqual({
      tenantId: 'org_1',
      target: 4,
      outstanding: 0,
      prefetch: 2,
      renew: false,
    });
    expect(batch.claims.map((i) => i.eventId)).toEqual(items(8).map((i) => i.eventId));
    // While that statement runs, the next one carries no lease and no claims for this lane.
    expect(lane.takeBatch(1, false)).toBeUndefined();
  });

  it('keeps claimed attempts ready, puts limited ones back in order, and hands on busy ones', () => {
    const lane = new EndpointLane('org_1', settings);
    lane.admit(items(10));
    const batch = lane.takeBatch(0, false)!;
    const outcomes: ClaimOutcome[] = [
      claimed(),
      claimed(),
      { kind: 'none' },
      { kind: 'busy', attempts: 2 },
      claimed(),
      { kind: 'limited' },
      { kind: 'limited' },
      claimed(),
    ];
    const { busy, none } = lane.applyBatch(batch, { held: 2, endpoint }, outcomes);
    expect(lane.held).toBe(2);
    expect(lane.ready.map((r) => r.item.eventId)).toEqual(['evt_0', 'evt_1', 'evt_4', 'evt_7']);
    expect(none.map((i) => i.eventId)).toEqual(['evt_2']);
    expect(busy).toEqual([{ item: items(4)[3], attempts: 2 }]);
    // Two per slot are claimed already: nothing more until some are answered.
    expect(lane.takeBatch(1, false)).toBeUndefined();
    answer(lane);
    answer(lane);
    // Limited claims are first in line again, before what was never asked for (answers of 5 ms
    // let the lane claim far ahead now).
    const next = lane.takeBatch(2, false)!;
    expect(next.claims.map((i) => i.eventId)).toEqual(['evt_5', 'evt_6', 'evt_8', 'evt_9']);
    expect(lane.pendingCount).toBe(0);
    // The deliveries dropped (none, busy) may come back in a later job.
    expect(lane.admit([items(3)[2], items(4)[3]])).toEqual([]);
  });

  it('asks again for slots that other processes all hold only after a pause, not at once', () => {
    const lane = claimedLane(2, 1);
    // Its lease lapsed and another worker took every slot: the renewal finds none.
    const renewal = lane.takeBatch(settings.renewAfterMs, false)!;
    expect(renewal.lease).toMatchObject({ renew: true });
    const { slotsRetryMs } = lane.applyBatch(renewal, { held: 0, endpoint }, []);
    expect(lane.held).toBe(0);
    expect(slotsRetryMs).toBe(settings.noSlotsRetryMs);
    // Its claimed attempts still wait, but the lane does not ask again in a loop...
    expect(lane.takeBatch(settings.renewAfterMs + 1, false)).toBeUndefined();
    // ...until the pause is over.
    const again = lane.takeBatch(settings.renewAfterMs + settings.noSlotsRetryMs, false)!;
    expect(again.lease).toMatchObject({ target: 2, outstanding: 2 });
    lane.applyBatch(again, { held: 2, endpoint }, []);
    expect(lane.nextToSend()).toBeDefined();
  });

  it('never has more requests in flight than slots held', () => {
    const lane = claimedLane(8, 3);
    const started = [lane.nextToSend(), lane.nextToSend(), lane.nextToSend(), lane.nextToSend()];
    expect(started.filter(Boolean)).toHaveLength(3);
    expect(lane.inFlight).toBe(3);
    answer(lane, 5, started[0]);
    expect(lane.nextToSend()).toBeDefined();
    expect(lane.inFlight).toBe(3);
  });

  it('records an answer in the next statement and claims that delivery again only once it is written', () => {
    const lane = claimedLane(2);
    const entry = answer(lane);
    lane.admit([{ eventId: entry.item.eventId, replay: true }]);
    const batch = lane.takeBatch(0, false)!;
    expect(batch.records).toEqual([entry]);
    // The replay of the delivery being recorded waits in the queue.
    expect(batch.claims.map((i) => i.eventId)).toEqual([]);
    lane.applyBatch(batch, { held: 4, endpoint }, []);
    lane.recorded(entry.item);
    expect(lane.takeBatch(1, false)!.claims).toEqual([{ eventId: 'evt_0', replay: true }]);
  });

  it('releases its slots once it has nothing left, and is then idle', () => {
    const lane = claimedLane(1);
    const entry = answer(lane);
    const batch = lane.takeBatch(0, false)!;
    expect(batch.lease).toMatchObject({ target: 0, outstanding: 0 });
    lane.applyBatch(batch, { held: 0, endpoint }, []);
    expect(lane.idle).toBe(false);
    lane.recorded(entry.item);
    expect(lane.idle).toBe(true);
  });

  it('renews its leases once a third of the lease time has passed', () => {
    const lane = claimedLane(8);
    expect(lane.takeBatch(6_999, false)).toBeUndefined();
    const batch = lane.takeBatch(7_000, false)!;
    expect(batch.lease).toMatchObject({ renew: true, target: 4 });
  });

  it('claims further ahead for a fast endpoint and only one per slot for a slow one', () => {
    const fast = claimedLane(8);
    for (let i = 0; i < 4; i++) answer(fast, 2);
    expect(fast.prefetch).toBe(16);
    const slow = claimedLane(8);
    for (let i = 0; i < 4; i++) answer(slow, 9_000);
    expect(slow.prefetch).toBe(1);
  });

  it('writes the records of a failed statement again and puts its claims back', () => {
    const lane = new EndpointLane('org_1', settings);
    lane.admit(items(3));
    const batch = lane.takeBatch(0, false)!;
    lane.failBatch(batch);
    expect(lane.pendingCount).toBe(3);
    expect(lane.takeBatch(1, false)!.claims.map((i) => i.eventId)).toEqual([
      'evt_0',
      'evt_1',
      'evt_2',
    ]);
  });

  it('drops the records and claims of a statement it gives up, and can take them again later', () => {
    const lane = claimedLane(3);
    const entry = answer(lane);
    lane.admit(items(1, 10));
    const batch = lane.takeBatch(0, false)!;
    expect(batch.records).toEqual([entry]);
    const dropped = lane.failBatch(batch, true);
    expect(dropped.map((i) => i.eventId)).toEqual(['evt_0', 'evt_10']);
    // Nothing of them is held back: a later job for the same deliveries is taken.
    expect(lane.admit([items(1)[0], items(1, 10)[0]])).toEqual([]);
  });

  it('gives back a claim it cannot send in time, and claims it again once that is written', () => {
    const lane = claimedLane(1);
    const ready = lane.nextToSend()!;
    lane.notSent();
    lane.unclaim(ready);
    const batch = lane.takeBatch(0, false)!;
    expect(batch.unclaims).toEqual([ready]);
    expect(batch.claims).toEqual([]);
    lane.applyBatch(batch, { held: 4, endpoint }, []);
    expect(lane.takeBatch(1, false)!.claims).toEqual([ready.item]);
  });

  it('when closing, claims nothing and releases the slots it no longer uses', () => {
    const lane = claimedLane(8);
    lane.nextToSend();
    lane.unclaimReady();
    expect(lane.dropPending()).toHaveLength(0);
    const batch = lane.takeBatch(0, true)!;
    expect(batch.claims).toEqual([]);
    expect(batch.unclaims).toHaveLength(7);
    expect(batch.lease).toMatchObject({ target: 1 });
  });

  it('knows which deliveries it has, from admission until their record is written', () => {
    const lane = claimedLane(2);
    lane.admit(items(1, 5));
    expect(lane.has('evt_0', false)).toBe(true);
    expect(lane.has('evt_5', false)).toBe(true);
    expect(lane.has('evt_0', true)).toBe(false);
    expect(lane.has('evt_9', false)).toBe(false);
    const entry = answer(lane);
    expect(lane.has(entry.item.eventId, false)).toBe(true);
    lane.recorded(entry.item);
    expect(lane.has(entry.item.eventId, false)).toBe(false);
  });

  it('gives one answered attempt alone, with no lease or claim, for a statement of its own', () => {
    const lane = claimedLane(2);
    lane.admit(items(2, 5));
    const first = answer(lane);
    const second = answer(lane);
    const batch = lane.takeRecord(0)!;
    expect(batch.lease).toBeUndefined();
    expect(batch).toMatchObject({ claims: [], unclaims: [] });
    expect(batch.records).toEqual([first]);
    // The rest goes in the next batch, the lane's claims with it.
    const next = lane.takeBatch(1, false)!;
    expect(next.records).toEqual([second]);
    expect(next.claims.map((i) => i.eventId)).toEqual(['evt_5', 'evt_6']);
    expect(lane.takeRecord(2)).toBeUndefined();
  });
});
