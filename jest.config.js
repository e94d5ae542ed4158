/** Engine is chosen by TEST_ENGINE (pglite | postgres); see test/setup/global-setup.ts. */
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/migrations'],
  testRegex: '.*\\.(spec|e2e-spec|medium-spec)\\.ts$',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleNameMapper: { '^src/(.*)$': '<rootDir>/src/$1', '^migrations/(.*)$': '<rootDir>/migrations/$1' },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 60000,
  // `*.postgres.e2e-spec.ts` proves what needs a second database session (PGlite serves one
  // connection), so it runs on the PostgreSQL leg only rather than being skipped on PGlite.
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEST_ENGINE === 'pglite' ? ['\\.postgres\\.e2e-spec\\.ts$'] : [])],

};
