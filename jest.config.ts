import type { Config } from 'jest';

const config: Config = {
  // Nest logs go to a per-test buffer, printed only when that test fails (packages/test-support).
  testEnvironment: '<rootDir>/packages/test-support/src/quiet-test-environment.ts',
  setupFilesAfterEnv: ['<rootDir>/packages/test-support/src/quiet-logger.setup.ts'],
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/bench'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
  },
  // The packages' sources, public subpaths (`@mmmq/core/testing`) included, so tests need no build of them first.
  moduleNameMapper: { '^@mmmq/([^/]+)$': '<rootDir>/packages/$1/src', '^@mmmq/([^/]+)/testing$': '<rootDir>/packages/$1/src/testing' },
  testTimeout: 30_000,
};

export default config;
