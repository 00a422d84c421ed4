/**
 * `connect(baseUrl, options)`: a client with a token got by exactly one way in: a token the caller
 * holds, the handshake with proof, OAuth (authorization code with PKCE), or an Ed25519 device key.
 */
import { type DeviceOptions, deviceCredential } from './auth/device.ts';
import { type HandshakeOptions, type HandshakeToken, handshake } from './auth/handshake.ts';
import { type OAuthOptions, oauthCredential } from './auth/oauth.ts';
import { PagClient } from './client.ts';
import { type Credential, staticToken } from './credentials.ts';
import { defaultSleep, Transport, type TransportOptions } from './transport.ts';

interface CommonOptions extends TransportOptions {
  /** The clock, in ms since the epoch (default Date.now): token expiry and waiting deadlines. */
  now?: () => number;
}

export type ConnectOptions = CommonOptions &
  (
    | { token: string }
    | { handshake: HandshakeOptions }
    | { oauth: OAuthOptions }
    | { device: DeviceOptions }
    | { credential: Credential }
  );

export interface ConnectedClient extends PagClient {
  /** The handshake's collected token (store it: it is answered once), when connected by handshake. */
  readonly handshakeToken?: HandshakeToken;
}

export async function connect(baseUrl: string, options: ConnectOptions): Promise<ConnectedClient> {
  const { fetch, retry, sleep = defaultSleep, now = Date.now } = options;
  const anonymous = new Transport(baseUrl, null, { fetch, retry, sleep });
  if ('token' in options) return new PagClient(anonymous.withCredential(staticToken(options.token)));
  if ('credential' in options) return new PagClient(anonymous.withCredential(options.credential));
  if ('handshake' in options) {
    const collected = await handshake(anonymous, options.handshake, sleep, now);
    const client = new PagClient(anonymous.withCredential(staticToken(collected.accessToken)));
    return Object.assign(client, { handshakeToken: collected });
  }
  if ('oauth' in options)
    return new PagClient(anonymous.withCredential(await oauthCredential(anonymous, options.oauth, now)));
  return new PagClient(
    anonymous.withCredential(await deviceCredential(anonymous, options.device, sleep, now)),
  );
}
