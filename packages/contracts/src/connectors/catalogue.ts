/**
 * The connector catalogue: every provider an owner can connect, one definition file each in
 * providers/ (validated when loaded, provider-definition.ts). The proxy builds its connectors
 * from it, the gateway and the proxy decide read or write from it (connector-access.ts), and the
 * named scope sets name its resources (scope-sets.ts, checked by a test).
 */
import { atlassian } from './providers/atlassian.ts';
import { dropbox } from './providers/dropbox.ts';
import { figma } from './providers/figma.ts';
import { github } from './providers/github.ts';
import { gmail } from './providers/gmail.ts';
import { googleCalendar } from './providers/google-calendar.ts';
import { googleDrive } from './providers/google-drive.ts';
import { linear } from './providers/linear.ts';
import { microsoft365 } from './providers/microsoft-365.ts';
import { notion } from './providers/notion.ts';
import { slack } from './providers/slack.ts';
import { spotify } from './providers/spotify.ts';
import { stripe } from './providers/stripe.ts';

export const PROVIDERS = [
  github,
  googleCalendar,
  gmail,
  googleDrive,
  slack,
  notion,
  microsoft365,
  linear,
  spotify,
  dropbox,
  atlassian,
  stripe,
  figma,
] as const;

export type ConnectorName = (typeof PROVIDERS)[number]['name'];

export const CONNECTOR_NAMES: readonly ConnectorName[] = PROVIDERS.map((provider) => provider.name);

const byName = new Map<string, (typeof PROVIDERS)[number]>(
  PROVIDERS.map((provider) => [provider.name, provider]),
);

/** The catalogue's provider of this name, or undefined (never an Object.prototype member). */
export function providerNamed(name: string): (typeof PROVIDERS)[number] | undefined {
  return byName.get(name);
}
