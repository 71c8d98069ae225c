import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import {
  PERSONAL_DATA,
  type CustomerMatch,
  type ErasedMember,
  type PersonalDataOptions,
  type PersonalDataRole,
} from '../common/privacy/personal-data.decorator';

interface Step extends Required<PersonalDataOptions> {
  run: (...args: unknown[]) => Promise<unknown>;
}

/**
 * The features' `@PersonalData()` methods (common/privacy), found once at start-up as housekeeping
 * finds its retention jobs, and run in order: the privacy feature writes no table of its own.
 */
@Injectable()
export class PersonalDataSteps implements OnApplicationBootstrap {
  private steps: Step[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onApplicationBootstrap(): void {
    const steps: Step[] = [];
    for (const { instance } of this.discovery.getProviders()) {
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = prototype[method];
        if (typeof fn !== 'function') continue;
        const options = Reflect.getMetadata(PERSONAL_DATA, fn) as PersonalDataOptions | undefined;
        if (!options) continue;
        steps.push({
          ...options,
          order: options.order ?? 0,
          run: (...args: unknown[]) =>
            (fn as (...a: unknown[]) => Promise<unknown>).apply(instance, args),
        });
      }
    }
    this.steps = steps.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  }

  /** The steps' names of a role, in the order they run. */
  names(role: PersonalDataRole): string[] {
    return this.of(role).map((s) => s.name);
  }

  private of(role: PersonalDataRole): Step[] {
    return this.steps.filter((s) => s.role === role);
  }

  /** Each feature's own rows of the member; the personal values they held. */
  async eraseMember(member: ErasedMember): Promise<string[]> {
    const values: string[] = [];
    for (const step of this.of('member')) values.push(...((await step.run(member)) as string[]));
    return values;
  }

  /** The customer's rows, feature by feature: how many of each and the values they held. */
  async eraseCustomer(
    tenantId: string,
    match: CustomerMatch,
  ): Promise<{ counts: Record<string, number>; values: string[] }> {
    const counts: Record<string, number> = {};
    const values: string[] = [];
    for (const step of this.of('customer')) {
      const found = (await step.run(tenantId, match)) as { count: number; values: string[] };
      counts[step.name] = found.count;
      values.push(...found.values);
    }
    return { counts, values };
  }

  /** The values replaced wherever the features copied them; rows changed, by feature. */
  async redact(tenantId: string, values: string[]): Promise<Record<string, number>> {
    const changed: Record<string, number> = {};
    for (const step of this.of('redact')) {
      changed[step.name] = (await step.run(tenantId, values)) as number;
    }
    return changed;
  }

  /** Every feature's personal fields about the member, merged. */
  async export(tenantId: string, memberId: string): Promise<Record<string, unknown>> {
    const parts: Record<string, unknown> = {};
    for (const step of this.of('export')) {
      Object.assign(parts, (await step.run(tenantId, memberId)) as Record<string, unknown>);
    }
    return parts;
  }
}
