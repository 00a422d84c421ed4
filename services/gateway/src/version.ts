/** The version the discovery index reports: the gateway package's own. */
import { readFileSync } from 'node:fs';

export const GATEWAY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
