/**
 * Types for the two oidc-provider modules bench/bare-oidc-server.ts imports by path (the package
 * has no `exports` map, so they resolve; @types/oidc-provider does not describe them).
 */
declare module 'oidc-provider/lib/helpers/lru.js' {
  /** Two-generation LRU: holds between maxSize and 2 × maxSize entries. */
  export default class LRU {
    constructor(options: { maxSize: number });
  }
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { Adapter, AdapterPayload } from 'oidc-provider';
  import type LRU from 'oidc-provider/lib/helpers/lru.js';

  /** The default adapter; without a store it shares one module-wide LRU of 1,000 entries. */
  export default class MemoryAdapter implements Adapter {
    constructor(model: string, store?: LRU, clockTolerance?: number);
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<undefined>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<undefined>;
    destroy(id: string): Promise<undefined>;
    revokeByGrantId(grantId: string): Promise<undefined>;
  }
}
