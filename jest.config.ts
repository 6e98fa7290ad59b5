import type { Config } from 'jest';

// Tests run as CommonJS through ts-jest (no --experimental-vm-modules needed);
// the shipped package is ESM, so relative imports carry `.js` and are mapped back here.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/stop-idle-guard.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        tsconfig: { module: 'commonjs', moduleResolution: 'node10', isolatedModules: true, esModuleInterop: true },
        diagnostics: false,
      },
    ],
  },
  testTimeout: 30_000,
  maxWorkers: 2,
};

export default config;
