// Jest runs our TypeScript as native ESM: @swc/jest strips types and keeps `import`/`export`,
// and node runs with --experimental-vm-modules (see docs/adr/0003-jest-native-esm-with-swc.md).
/** @type {import("jest").Config} */

const project = {
  testEnvironment: 'node',
  // deploy/build.sh leaves each image's build context there, with copies of our packages (same
  // names: jest's module map would refuse them as duplicates).
  modulePathIgnorePatterns: ['<rootDir>/deploy/.build/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2024', keepClassNames: true },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
};

// Every test once, on the in-memory bus where a test does not choose; the bus suites of the brain
// and the proxy run a second time on a real nats-server, one per test file (their support code
// asks startTestBroker, which reads PAG_TEST_BUS). See docs/adr/0035-service-suites-on-both-buses.md.
const config = {
  projects: [
    {
      ...project,
      testMatch: ['<rootDir>/{packages,services}/*/{src,test}/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/test/containers/'],
    },
    // The container tests: the gateway's images under testcontainers (packages/testkit's
    // GatewayContainer) and compose. They need a Docker engine and the images (`pnpm images`;
    // `scripts/setup.sh --test` builds them), and fail saying so when either is missing.
    {
      ...project,
      displayName: 'containers',
      testMatch: ['<rootDir>/test/containers/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/containers/ryuk-off.setup.ts'],
    },
    {
      ...project,
      displayName: 'nats',
      testMatch: ['<rootDir>/services/{brain,proxy}/test/**/*.test.ts'],
      // No bus in these: the schema checks, the brain's search (SQL only), and the proxy's HTTP forwarding (its bus part, the
      // listings, is in listings.test.ts).
      testPathIgnorePatterns: [
        '/schema\\.test\\.ts$',
        '/services/brain/test/search\\.test\\.ts$',
        '/services/proxy/test/forwarding\\.test\\.ts$',
      ],
      setupFiles: ['<rootDir>/packages/kit/src/testing/on-nats.setup.ts'],
    },
  ],
  maxWorkers: 2,
  testTimeout: 30_000,
  // How long a worker may take to exit after its last test file before jest kills it and warns
  // "A worker process has failed to exit gracefully" (default 500 ms). On a machine whose cores
  // are saturated (the suite beside `pnpm bench`) a worker with no open handle still missed 500 ms
  // in each of 4 runs; a real leak keeps a worker alive for good and is still reported, 5 s later.
  // See docs/adr/0036-a-worker-gets-five-seconds-to-exit.md.
  workerGracefulExitTimeout: 5_000,
};

export default config;
