/**
 * Jest setup file of the `nats` project (jest.config.js): the test file it runs before starts its
 * broker as a real nats-server (startTestBroker). Jest gives each test file its own copy of
 * process.env, so this reaches no other file.
 */
import { TEST_BUS_VARIABLE } from './test-broker.ts';

process.env[TEST_BUS_VARIABLE] = 'nats';
