/**
 * Endpoints declared in the contracts that no service answers yet: a service not built yet
 * (trigger), or a subject whose handler needs what is not there (brain.chat.send needs an LLM
 * provider). The gateway answers their routes 503 naming the service. An entry leaves when its
 * handler is written; the tests below fail until it does.
 */
export const NOT_SERVED_YET: ReadonlySet<string> = new Set([
  'brain.chat.send',
  'brain.conversations.get',
  'brain.owner-knowledge.list',
  'brain.owner-provider.clear',
  'brain.owner-provider.get',
  'brain.owner-provider.set',
  'trigger.triggers.create',
  'trigger.triggers.list',
  'trigger.triggers.run',
]);
