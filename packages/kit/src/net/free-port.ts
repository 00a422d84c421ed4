/**
 * A port nobody listens on right now, for servers a test starts. The kernel picks it (port 0), so
 * parallel test files do not collide the way fixed or guessed ports do.
 */
import { createServer } from 'node:net';

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string')
    throw new Error('listening on port 0 gave no TCP port');
  return address.port;
}
