/**
 * Endpoints declared in the contracts that no service answers yet: a service not built yet
 * (trigger). The gateway answers their routes 503 naming the service. An entry leaves when its
 * handler is written; the tests below fail until it does.
 */
export const NOT_SERVED_YET: ReadonlySet<string> = new Set([
  'trigger.triggers.create',
  'trigger.triggers.list',
  'trigger.triggers.get',
  'trigger.triggers.run',
  'trigger.runs.list',
  'trigger.triggers.pause',
  'trigger.triggers.resume',
  'trigger.triggers.delete',
  'trigger.owner-triggers.list',
  'trigger.owner-triggers.pause',
  'trigger.owner-triggers.resume',
  'trigger.owner-triggers.delete',
  'trigger.owner-triggers.run',
  'trigger.owner-triggers.memory',
  'gateway.usage.charge',
  'brain.prompt.run',
  'proxy.calls.forward',
]);
