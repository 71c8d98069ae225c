// Two projects: fast unit tests beside the code (src/**/*.spec.ts) and end-to-end tests over the
// real AppModule against real PostgreSQL and Redis (test/e2e). The swagger plugin runs under
// ts-jest too, so the OpenAPI document the tests see is the one the build produces.
const tsJest = [
  'ts-jest',
  {
    tsconfig: 'tsconfig.json',
    astTransformers: { before: ['<rootDir>/test/utils/swagger-transformer.js'] },
  },
];
module.exports = {
  // Project-level testTimeout is ignored by Jest: the e2e budget is set here for both.
  testTimeout: 30000,
  // Two files at once by default, even on two cores: most of an end-to-end file's time is spent
  // waiting (on PostgreSQL, Redis, a browser, a child process). Each worker has its own copy of
  // the run's database and its own Bull prefix (test/utils/global-setup.ts); TEST_WORKERS=1 runs
  // the files one by one.
  maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
  reporters: ['default', '<rootDir>/test/utils/timing-reporter.js'],
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      // test/architecture: the module boundaries (lint of deliberate violations, feature cycles).
      testMatch: ['<rootDir>/src/**/*.spec.ts?(x)', '<rootDir>/test/architecture/**/*.spec.ts'],
      transform: { '^.+\\.tsx?$': tsJest },
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      transform: { '^.+\\.tsx?$': tsJest },
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      setupFiles: ['<rootDir>/test/utils/worker-env.ts'],
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
  ],
};
