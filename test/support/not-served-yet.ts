/**
 * Endpoints declared in the contracts that no service answers yet: a service not built yet
 * (trigger). The gateway answers their routes 503 naming the service. An entry leaves when its
 * handler is written; the tests below fail until it does.
 */
export const NOT_SERVED_YET: ReadonlySet<string> = new Set([
  'trigger.triggers.create',
  'trigger.triggers.list',
  'trigger.triggers.run',
]);
