/**
 * Where the bearer token comes from. Each way in (connect.ts) makes one: a fixed token, a
 * handshake's collected token, OAuth tokens that refresh, or a device key that signs a new
 * assertion. The transport asks for the token before each request and, after a 401, asks the
 * credential to renew once.
 */
export interface Credential {
  /** The token to send now; one that is about to expire is renewed first where the credential can. */
  token(): Promise<string>;
  /** Gets a new token after a 401; false when this credential cannot (a fixed token). */
  renew?(): Promise<boolean>;
}

/** A token the caller already holds (a dashboard token, `pag token create`, a collected handshake token). */
export function staticToken(token: string): Credential {
  return { token: async () => token };
}

/** Seconds before expiry at which a token is renewed before use (half its lifetime if that is shorter). */
export const RENEW_MARGIN_SECONDS = 60;

/**
 * A token with an expiry, renewed by `obtain` before use when it is about to expire and after a
 * 401; concurrent callers share one renewal.
 */
export class ExpiringCredential implements Credential {
  private current: { token: string; renewAt: number } | null;
  private pending: Promise<void> | null = null;

  private readonly obtain: () => Promise<{ token: string; expiresInSeconds: number }>;
  private readonly now: () => number;

  constructor(
    obtain: () => Promise<{ token: string; expiresInSeconds: number }>,
    now: () => number,
    initial: { token: string; expiresInSeconds: number } | null = null,
  ) {
    this.obtain = obtain;
    this.now = now;
    this.current = initial === null ? null : this.stamp(initial);
  }

  async token(): Promise<string> {
    if (this.current === null || this.current.renewAt <= this.now()) await this.renewNow();
    if (this.current === null) throw new Error('renewal left no token');
    return this.current.token;
  }

  async renew(): Promise<boolean> {
    await this.renewNow();
    return true;
  }

  private renewNow(): Promise<void> {
    this.pending ??= this.obtain()
      .then((next) => {
        this.current = this.stamp(next);
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private stamp(next: { token: string; expiresInSeconds: number }) {
    const margin = Math.min(RENEW_MARGIN_SECONDS, next.expiresInSeconds / 2);
    return { token: next.token, renewAt: this.now() + (next.expiresInSeconds - margin) * 1000 };
  }
}
