import type { SchedulerRegistry } from '@nestjs/schedule';

/**
 * A process's own timers, kept in Nest's SchedulerRegistry (@nestjs/schedule) under a name, so
 * that ScheduleModule clears every one of them at shutdown and a test can list them. Used for
 * what is per process and must not live in Redis (docs/architecture.md, "Jobs and timers"): the
 * webhook sweeper, housekeeping, the import sweep and the click counter's flush. Their periods
 * come from the config, which is why they are added here rather than declared with `@Interval`
 * (a decorator takes its period when the class is declared). A timer never keeps a process alive
 * (unref), and a failed run goes to `failed`, never unhandled.
 */

type Task = () => Promise<unknown>;
type Failed = (error: unknown) => void;

/** Runs `task` every `ms` milliseconds under `name`. */
export function addInterval(
  registry: SchedulerRegistry,
  name: string,
  ms: number,
  task: Task,
  failed: Failed,
): void {
  registry.addInterval(name, unref(setInterval(guarded(task, failed), ms)));
}

/** Runs `task` once after `ms` milliseconds under `name`. */
export function addTimeout(
  registry: SchedulerRegistry,
  name: string,
  ms: number,
  task: Task,
  failed: Failed,
): void {
  registry.addTimeout(name, unref(setTimeout(guarded(task, failed), ms)));
}

const guarded = (task: Task, failed: Failed) => () => void task().catch(failed);

function unref<T extends NodeJS.Timeout>(timer: T): T {
  timer.unref();
  return timer;
}

/**
 * Stops the interval `name` now, before ScheduleModule would at shutdown (e.g. to write what is
 * left once no timer can start another write); one already stopped is fine.
 */
export function stopInterval(registry: SchedulerRegistry, name: string): void {
  if (registry.doesExist('interval', name)) registry.deleteInterval(name);
}
