import type { Config } from 'jest';

// End-to-end tests: the real OpenCode (npm `opencode-ai`) against a scripted mock model (test/e2e/).
// Serial (each test starts OpenCode processes), generous timeouts. Files are `*.e2e.ts`, so the unit run
// (`jest`, testMatch `*.test.ts`) never picks them up.
//
// `@opencode-ai/sdk` ships ESM only (its `exports` have only the `import` condition), while tests run as
// CommonJS: the mapper points jest at its files and ts-jest (allowJs) turns them into CommonJS.
const tsJest = [
  'ts-jest',
  {
    tsconfig: {
      module: 'commonjs',
      moduleResolution: 'node10',
      isolatedModules: true,
      esModuleInterop: true,
      allowJs: true,
    },
    diagnostics: false,
  },
] as const;

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/e2e'],
  testMatch: ['**/*.e2e.ts'],
  moduleNameMapper: {
    '^@opencode-ai/sdk/v2/client$': '<rootDir>/node_modules/@opencode-ai/sdk/dist/v2/client.js',
    '^@opencode-ai/sdk/v2$': '<rootDir>/node_modules/@opencode-ai/sdk/dist/v2/index.js',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': [...tsJest],
    '/node_modules/@opencode-ai/sdk/.+\\.js$': [...tsJest],
  },
  transformIgnorePatterns: ['/node_modules/(?!@opencode-ai/sdk/)'],
  testTimeout: 180_000,
  maxWorkers: 1,
  // OpenCode runs are slow-ish; say so instead of flagging every test as slow.
  slowTestThreshold: 60,
  verbose: true,
};

export default config;
