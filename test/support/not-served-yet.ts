/**
 * Endpoints declared in the contracts that no service answers yet. The gateway answers their
 * routes 503 naming the service. An entry leaves when its handler is written; the tests below
 * fail until it does.
 */
export const NOT_SERVED_YET: ReadonlySet<string> = new Set<string>([]);
