// Runs before each end-to-end file (jest.config.js, setupFiles): a file in Jest worker k > 1 uses
// that worker's copy of the run's database and its own Bull prefix (./global-setup.ts), so the
// files of different workers never share rows or queues. Worker 1 (and an in-band run) uses the
// run's database itself. Jest gives each file a fresh copy of the worker's environment, so this
// rewrites it once per file.
import { workerDatabaseName } from './test-env';

const worker = Number(process.env.JEST_WORKER_ID ?? 1);
const url = process.env.TEST_DATABASE_URL;
if (worker > 1 && url) {
  const own = new URL(url);
  own.pathname = `/${workerDatabaseName(own.pathname.slice(1), worker)}`;
  process.env.TEST_DATABASE_URL = own.toString();
  process.env.TEST_QUEUE_PREFIX = `${process.env.TEST_QUEUE_PREFIX}_w${worker}`;
}
