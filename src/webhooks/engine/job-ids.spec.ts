import * as ids from './job-ids';

// Job ids decide which adds collapse into one job, in every process and every version running at
// once: pinned here, so a change to one is a decision and not an accident.
describe('webhook job ids', () => {
  const NOW = 1_800_000_000_000;

  it.each([
    ['an attempt', ids.deliverJobId('evt_A', 3), 'dlv:evt_A:3'],
    ['a replay request', ids.replayJobId('evt_A', 4), 'dlv:evt_A:4:replay'],
    ['first attempts committed together', ids.groupJobId(['evt_A', 'evt_B']), 'dlv:evt_A:1:group2'],
    [
      'a job put off',
      ids.deferredJobId(['evt_A', 'evt_B'], 2, NOW),
      `dlv:evt_A:deferred2:2:${NOW}`,
    ],
    ['a busy attempt', ids.busyJobId('evt_A', 2, NOW), `dlv:evt_A:2:busy${NOW}`],
    ['a replay handed on', ids.replayAgainJobId('evt_A', NOW), `dlv:evt_A:replay${NOW}`],
  ])('%s: %s', (_, id, expected) => {
    expect(id).toBe(expected);
  });

  it('gives the same attempt the same id, and other attempts or kinds other ids', () => {
    expect(ids.deliverJobId('evt_A', 1)).toBe(ids.deliverJobId('evt_A', 1));
    expect(
      new Set([
        ids.deliverJobId('evt_A', 1),
        ids.deliverJobId('evt_A', 2),
        ids.replayJobId('evt_A', 1),
        ids.groupJobId(['evt_A', 'evt_B']),
        ids.deliverJobId('evt_B', 1),
      ]).size,
    ).toBe(5);
  });
});
