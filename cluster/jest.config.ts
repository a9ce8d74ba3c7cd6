import type { Config } from 'jest';

/**
 * The cluster tier (`pnpm test:cluster`): starts RabbitMQ nodes of its own on this machine (a 3-node cluster, on
 * free ports and temp dirs, never the shared 127.0.0.1:5672 one) and kills them under load. Separate from `pnpm test`
 * and `.ci/run` for its time (docs/scaling.md#beyond-one-machine-a-3-node-cluster). One file at a time: three
 * Erlang VMs already fill the 2-core machine.
 */
const config: Config = {
  rootDir: '..',
  testEnvironment: '<rootDir>/packages/test-support/src/quiet-test-environment.ts',
  setupFilesAfterEnv: ['<rootDir>/packages/test-support/src/quiet-logger.setup.ts'],
  roots: ['<rootDir>/cluster/test'],
  testMatch: ['**/*.e2e-spec.ts'],
  maxWorkers: 1,
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/cluster/tsconfig.json' }],
  },
  // The packages' sources, public subpaths (`@mmmq/core/testing`) included, so tests need no build of them first.
  moduleNameMapper: { '^@mmmq/([^/]+)$': '<rootDir>/packages/$1/src', '^@mmmq/([^/]+)/testing$': '<rootDir>/packages/$1/src/testing' },
  // A cluster start is ~20 s here, the failover run a minute or two.
  testTimeout: 300_000,
};

export default config;
