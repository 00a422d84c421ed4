/**
 * Until when tokens without the pag_ prefix (issued before it existed, docs/adr/0025) are still
 * looked up: LEGACY_TOKENS_UNTIL when the operator set it, else when the last stored legacy
 * access or refresh token expires (the rows marked `legacy`), or never when there is none.
 *
 * No new legacy token is ever issued, so the moment only moves earlier: as legacy tokens expire
 * or are revoked (an agent revoked, a refresh token rotated) the next refresh() sees it, and once
 * none is left the legacy path is closed. The adapter and the introspection answers read it.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

export class LegacyCutOver {
  readonly #prisma: PrismaClient;
  readonly #configured: Date | null | undefined;
  #until: Date | null = null;

  private constructor(prisma: PrismaClient, configured: Date | null | undefined) {
    this.#prisma = prisma;
    this.#configured = configured;
  }

  /** `configured`: LEGACY_TOKENS_UNTIL (undefined: follow the stored legacy tokens). */
  static async load(prisma: PrismaClient, configured: Date | null | undefined): Promise<LegacyCutOver> {
    const cutOver = new LegacyCutOver(prisma, configured);
    await cutOver.refresh();
    return cutOver;
  }

  /** The moment; null: no legacy token is looked up. */
  get until(): Date | null {
    return this.#until;
  }

  /** Whether a legacy token may still be looked up now. */
  open(now = Date.now()): boolean {
    return this.#until !== null && now < this.#until.getTime();
  }

  /** Reads the moment again from the stored legacy tokens (unless the operator set it). */
  async refresh(): Promise<void> {
    if (this.#configured !== undefined) {
      this.#until = this.#configured;
      return;
    }
    const [row] = await this.#prisma.$queryRaw<{ until: Date | null }[]>`
      SELECT max(expires_at) AS until FROM "auth"."oidc_payloads"
       WHERE legacy AND model IN ('AccessToken', 'RefreshToken') AND expires_at > now()`;
    this.#until = row?.until ?? null;
  }
}
