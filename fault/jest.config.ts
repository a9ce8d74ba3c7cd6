import type { Config } from 'jest';

/**
 * The fault suite (`pnpm test:fault`, `pnpm test:fault:long`): spawns the built broker, so build first. Scenarios
 * run one at a time (`maxWorkers: 1`): they measure a broker under load on a 2-core machine, and share none of it.
 */
const config: Config = {
  rootDir: '..',
  testEnvironment: '<rootDir>/packages/test-support/src/quiet-test-environment.ts',
  setupFilesAfterEnv: ['<rootDir>/packages/test-support/src/quiet-logger.setup.ts'],
  roots: ['<rootDir>/fault/test'],
  testMatch: ['**/*.fault-spec.ts'],
  maxWorkers: 1,
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/fault/tsconfig.json' }],
  },
  // The packages' sources, public subpaths (`@mmmq/core/testing`) included, so tests need no build of them first.
  moduleNameMapper: { '^@mmmq/([^/]+)$': '<rootDir>/packages/$1/src', '^@mmmq/([^/]+)/testing$': '<rootDir>/packages/$1/src/testing' },
  globalTeardown: '<rootDir>/fault/src/report/render-on-teardown.ts',
  // The long tier's 300 crash cycles alone take over 10 minutes on the 2-core machine.
  testTimeout: process.env.MMMQ_FAULT_TIER === 'long' ? 3_600_000 : 600_000,
};

export default config;
