import type { Config } from 'jest';

const config: Config = {
  // Nest logs go to a per-test buffer, printed only when that test fails (packages/test-support).
  testEnvironment: '<rootDir>/packages/test-support/src/quiet-test-environment.ts',
  setupFilesAfterEnv: ['<rootDir>/packages/test-support/src/quiet-logger.setup.ts'],
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/bench', '<rootDir>/conformance'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
  },
  // The packages' sources, subpaths (`@mmmq/core/testing`, `@mmmq/consumer/internal`) included, so tests need no build of them first.
  moduleNameMapper: {
    '^@mmmq/([^/]+)$': '<rootDir>/packages/$1/src',
    '^@mmmq/([^/]+)/(testing|internal|metrics|typeorm|kysely)$': '<rootDir>/packages/$1/src/$2',
  },
  // Beside other work (a loaded CI machine) an e2e test may take 10× its idle time; its waits have their own deadlines.
  testTimeout: 60_000,
  // Two worker processes, not one process for every suite (what jest does with one worker): a worker that has grown
  // past the limit is replaced between suites, so what a suite leaves behind (timers, agents, modules) cannot add up
  // to the heap's limit over hundreds of suites — as it did in one process (out of memory at 3.5 GB, suite ~300).
  maxWorkers: 2,
  workerIdleMemoryLimit: '1GB',
};

export default config;
