/**
 * An owner account of a GatewayContainer and what a test does as that owner, through the operator
 * CLI `pag` in the migrations image (as deploy/README.md runs it with compose): tokens, and the
 * approvals the owner would give on the dashboard (handshakes, devices).
 */
import { randomBytes } from 'node:crypto';

/** Runs `pag <args>` and answers its standard output; throws with its standard error on failure. */
export type PagCommand = (args: readonly string[]) => Promise<string>;

export type Plan = 'free' | 'pro' | 'heavy';

export interface OwnerOptions {
  /** Generated (`owner-<random>@example.test`) unless given. */
  email?: string;
  /** Generated unless given. */
  password?: string;
  /** Default `free`. */
  plan?: Plan;
}

export interface GrantOptions {
  /** The token's scopes (`full`, `read chat`, `services:github:read`, …). */
  scopes?: readonly string[];
  /** Requests a day (UTC), then 429 USAGE_LIMIT_EXCEEDED. */
  daily?: number;
  monthly?: number;
  /** Last valid day, `YYYY-MM-DD` (UTC). */
  expires?: string;
}

export interface TokenOptions extends GrantOptions {
  scopes: readonly string[];
  /** The agent's name on the dashboard; generated unless given. */
  name?: string;
}

export interface HandshakeApproval extends GrantOptions {
  /** The claim code of the handshake's claimUrl: needed only with several owners on the gateway. */
  claimCode?: string;
}

export interface DeviceApproval extends Omit<GrantOptions, 'expires'> {
  /** The fingerprint the device printed, compared before approving. */
  fingerprint?: string;
}

function grantArgs({ scopes, daily, monthly, expires }: GrantOptions): string[] {
  return [
    ...(scopes ? ['--scopes', scopes.join(' ')] : []),
    ...(daily !== undefined ? ['--daily', String(daily)] : []),
    ...(monthly !== undefined ? ['--monthly', String(monthly)] : []),
    ...(expires !== undefined ? ['--expires', expires] : []),
  ];
}

/** The CLI prints a new token last, once. */
function lastLine(output: string): string {
  const line = output.trimEnd().split('\n').at(-1)?.trim();
  if (!line) throw new Error(`pag printed no token:\n${output}`);
  return line;
}

export class Owner {
  readonly id: string;
  readonly email: string;
  readonly password: string;
  readonly plan: Plan;
  readonly #pag: PagCommand;

  private constructor(pag: PagCommand, id: string, email: string, password: string, plan: Plan) {
    this.#pag = pag;
    this.id = id;
    this.email = email;
    this.password = password;
    this.plan = plan;
  }

  /** `pag owner create`, as /signup makes an account. */
  static async create(pag: PagCommand, options: OwnerOptions = {}): Promise<Owner> {
    const email = options.email ?? `owner-${randomBytes(6).toString('hex')}@example.test`;
    const password = options.password ?? randomBytes(18).toString('base64url');
    const plan = options.plan ?? 'free';
    const output = await pag(['owner', 'create', '--email', email, '--password', password, '--plan', plan]);
    // "created owner E (plan), id acc_…"
    const id = /\bid (\S+)/.exec(output)?.[1];
    if (id === undefined) throw new Error(`pag owner create did not name the account:\n${output}`);
    return new Owner(pag, id, email, password, plan);
  }

  /** `pag token create`, as /dashboard/tokens makes one: the bearer token. */
  async createToken(options: TokenOptions): Promise<string> {
    const name = options.name ?? `agent-${randomBytes(4).toString('hex')}`;
    return lastLine(
      await this.#pag(['token', 'create', '--owner', this.email, '--name', name, ...grantArgs(options)]),
    );
  }

  /** Approves a pending handshake (`hs_…`) with the requested scopes or fewer: the agent's token. */
  async approveHandshake(handshakeId: string, options: HandshakeApproval = {}): Promise<string> {
    if (options.claimCode !== undefined)
      await this.#pag(['handshake', 'claim', '--owner', this.email, '--code', options.claimCode]);
    return lastLine(
      await this.#pag([
        'handshake',
        'approve',
        '--owner',
        this.email,
        '--id',
        handshakeId,
        ...grantArgs(options),
      ]),
    );
  }

  /**
   * Approves a device: by its id (`dev_…`), or by the user code it showed (`XXXX-XXXX`), which
   * claims it for this owner first, as the claim page does. Scopes default to `read`.
   */
  async approveDevice(device: string, options: DeviceApproval = {}): Promise<void> {
    const which = device.startsWith('dev_') ? ['--id', device] : ['--user-code', device];
    await this.#pag([
      'device',
      'approve',
      '--owner',
      this.email,
      ...which,
      ...grantArgs(options),
      // a fingerprint may begin with `-`, so with `=`
      ...(options.fingerprint !== undefined ? [`--fingerprint=${options.fingerprint}`] : []),
    ]);
  }
}
