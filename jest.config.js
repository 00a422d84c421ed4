// Jest runs our TypeScript as native ESM: @swc/jest strips types and keeps `import`/`export`,
// and node runs with --experimental-vm-modules (see docs/adr/0003-jest-native-esm-with-swc.md).
/** @type {import("jest").Config} */

const config = {
  testEnvironment: 'node',
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
  testMatch: ['<rootDir>/{packages,services}/*/{src,test}/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  maxWorkers: 2,
  testTimeout: 30_000,
};

export default config;
