import type { AppConfig } from '../config/app-config';
import type { TransactionHost } from '../database/transaction-host';
import { ClickCounter } from './click-counter';

/** The write itself is covered end to end (test/e2e/short-links); this is what a failed one keeps. */
describe('ClickCounter', () => {
  const link = (id: string, memberId = 'mbr_1') => ({ tenantId: 'org_1', id, memberId });

  function counterWith(query: jest.Mock) {
    const tx = { manager: { query } } as unknown as TransactionHost;
    return new ClickCounter(tx, { clickFlushMs: 1000 } as AppConfig);
  }

  it('adds clicks up per link and writes them in one statement, sorted', async () => {
    const query = jest.fn().mockResolvedValue([]);
    const counter = counterWith(query);
    counter.record(link('dl_b'));
    counter.record(link('dl_a', 'mbr_2'));
    counter.record(link('dl_b'));
    await counter.flush();
    expect(query).toHaveBeenCalledTimes(1);
    expect(query.mock.calls[0][1]).toEqual([
      ['org_1', 'org_1'],
      ['dl_a', 'dl_b'],
      ['mbr_2', 'mbr_1'],
      [1, 2],
    ]);
    await counter.flush(); // nothing new: no statement
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('keeps the counts of a failed write and adds them to the next one', async () => {
    const query = jest
      .fn()
      .mockRejectedValueOnce(new Error('connection lost'))
      .mockResolvedValue([]);
    const counter = counterWith(query);
    counter.record(link('dl_a'));
    counter.record(link('dl_a'));
    await counter.flush();
    counter.record(link('dl_a'));
    await counter.flush();
    expect(query).toHaveBeenCalledTimes(2);
    expect(query.mock.calls[1][1]).toEqual([['org_1'], ['dl_a'], ['mbr_1'], [3]]);
  });
});
