/**
 * Every account has a default persona, so every agent's context carries one: the first time this
 * process meets an account (its identity, context or personas are read), an account without a
 * default gets DEFAULT_PERSONA (PersonaStore.insertDefaultIfAbsent: race-safe across replicas).
 * A default is never removed once there (it cannot be deleted, only replaced), so each process
 * checks an account once; the set of accounts checked grows with the accounts served (a UUID
 * string each, about 100 bytes).
 */
import { DEFAULT_PERSONA } from '../domain/default-persona.ts';
import type { PersonaStore } from '../store/persona-store.ts';

export class DefaultPersona {
  readonly #personas: PersonaStore;
  readonly #checked = new Set<string>();
  readonly #checking = new Map<string, Promise<void>>();

  constructor(personas: PersonaStore) {
    this.#personas = personas;
  }

  /**
   * Makes sure the account has a default persona: one check per account and process, shared by
   * the reads that arrive while it runs.
   */
  async ensure(accountId: string): Promise<void> {
    if (this.#checked.has(accountId)) return;
    let checking = this.#checking.get(accountId);
    if (checking === undefined) {
      checking = this.#check(accountId).finally(() => this.#checking.delete(accountId));
      this.#checking.set(accountId, checking);
    }
    return checking;
  }

  async #check(accountId: string): Promise<void> {
    if (!(await this.#personas.hasDefault(accountId))) {
      await this.#personas.insertDefaultIfAbsent(accountId, DEFAULT_PERSONA);
    }
    this.#checked.add(accountId);
  }
}
