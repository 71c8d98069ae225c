import { SchedulerRegistry } from '@nestjs/schedule';
import type { AppConfig } from '../config/app-config';
import type { TransactionHost } from '../database/transaction-host';
import type { MembersService } from '../members/members.service';
import { ClickCounter } from './click-counter';
import type { DeeplinksRepository } from './deeplinks.repository';

/** The write itself is covered end to end (test/e2e/deeplinks/short-links); this is what a failed one keeps. */
describe('ClickCounter', () => {
  const link = (id: string, memberId = 'mbr_1') => ({ tenantId: 'org_1', id, memberId });

  function counterWith(
    linkClicks: jest.Mock,
    memberClicks = jest.fn().mockResolvedValue(undefined),
  ) {
    const tx = { transaction: (fn: () => Promise<void>) => fn() } as unknown as TransactionHost;
    const links = { addClicks: linkClicks } as unknown as DeeplinksRepository;
    const users = { addClicks: memberClicks } as unknown as MembersService;
    return {
      counter: new ClickCounter(
        tx,
        { clickFlushMs: 1000 } as AppConfig,
        links,
        users,
        new SchedulerRegistry(),
      ),
      memberClicks,
    };
  }

  it('adds clicks up per link and writes links, then members, in one transaction, sorted', async () => {
    const linkClicks = jest.fn().mockResolvedValue(undefined);
    const { counter, memberClicks } = counterWith(linkClicks);
    counter.record(link('dl_b'));
    counter.record(link('dl_a', 'mbr_2'));
    counter.record(link('dl_b'));
    await counter.flush();
    const batch = [
      { tenantId: 'org_1', id: 'dl_a', memberId: 'mbr_2', count: 1 },
      { tenantId: 'org_1', id: 'dl_b', memberId: 'mbr_1', count: 2 },
    ];
    expect(linkClicks.mock.calls).toEqual([[batch]]);
    expect(memberClicks.mock.calls).toEqual([[batch]]);
    await counter.flush(); // nothing new: no statement
    expect(linkClicks).toHaveBeenCalledTimes(1);
  });

  it('keeps the counts of a failed write and adds them to the next one', async () => {
    const linkClicks = jest
      .fn()
      .mockRejectedValueOnce(new Error('connection lost'))
      .mockResolvedValue(undefined);
    const { counter } = counterWith(linkClicks);
    counter.record(link('dl_a'));
    counter.record(link('dl_a'));
    await counter.flush();
    counter.record(link('dl_a'));
    await counter.flush();
    expect(linkClicks).toHaveBeenCalledTimes(2);
    expect(linkClicks.mock.calls[1][0]).toEqual([
      { tenantId: 'org_1', id: 'dl_a', memberId: 'mbr_1', count: 3 },
    ]);
  });
});
