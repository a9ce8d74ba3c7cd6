import type { Config } from 'jest';

/**
 * The pack-and-install test (`pnpm test:pack`): packs the six packages, installs the tarballs into a fresh Nest
 * application outside the monorepo and runs it. Separate from `pnpm test` because it needs the npm registry and
 * builds the whole repository first.
 */
const config: Config = {
  rootDir: '..',
  testEnvironment: 'node',
  roots: ['<rootDir>/packaging/test'],
  testMatch: ['**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/packaging/tsconfig.json' }],
  },
  // npm install of a fresh application on a cold cache is the slow part: about a minute on this machine.
  testTimeout: 600_000,
  moduleNameMapper: { '^@mmmq/test-support$': '<rootDir>/packages/test-support/src' },
};

export default config;
