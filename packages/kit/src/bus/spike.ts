import { startNatsServer } from '../testing/nats-server.ts';
import { until } from './bus-test-helpers.ts';
import { NatsBus } from './nats-bus.ts';
import { pino } from 'pino';
const logger = pino({ level: 'debug' });
const first = await startNatsServer();
const service = await NatsBus.connect({ url: first.url, name: 'restart-service', logger });
try {
  await service.handle<number>('restart.double', (msg) => msg.data * 2);
  console.log('ready', service.isReady());
  await first.stop();
  console.log('stopped');
  await until(() => !service.isReady(), 'gone');
  console.log('not ready');
  const second = await startNatsServer({ port: first.port });
  console.log('second up');
  await until(() => service.isReady(), 'back');
  console.log('ready again');
  const client = await NatsBus.connect({ url: second.url, name: 'restart-client' });
  console.log(await client.request('restart.double', 21, { timeoutMs: 2_000 }));
  await client.close();
  await service.close();
  await second.stop();
} catch (e) { console.log('ERR', e); process.exit(1); }
