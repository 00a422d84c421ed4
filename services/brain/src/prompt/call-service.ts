/**
 * The one tool a trigger run's model gets, `call_service` {service, method, path, query?, body?},
 * offered with the run's services only. Each call the model asks for is checked here (arguments,
 * a service of the run's list, the run's call budget) and then made by the proxy over
 * proxy.calls.forward as the run's agent with the run's scopes: the proxy alone decides read or
 * write and whether the scopes allow it, exactly as for the agent's own HTTP calls, and audits it.
 * Whatever comes back, the answer or the refusal with its code, is what the model reads next;
 * a refusal never ends the run. Every call is listed in the run's result (serviceCalls).
 */
import type { PromptRunResult } from '@pag/contracts';
import { AppError, MessageHeaders, ProxyEndpoints } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import { requestEndpoint } from '@pag/kit';
import { z } from 'zod';
import type { ToolCall, ToolDefinition } from '../chat/provider-client.ts';

export const CALL_SERVICE = 'call_service';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type ServiceCallRecord = PromptRunResult['serviceCalls'][number];

export function callServiceTool(services: readonly string[]): ToolDefinition {
  return {
    name: CALL_SERVICE,
    description:
      "Calls one of the owner's connected services' HTTP API through the owner's gateway, with this agent's rights. Answers the HTTP status, the content type and the body (cut when long), or why the call was refused.",
    parameters: {
      type: 'object',
      properties: {
        service: { type: 'string', enum: services, description: 'The connected service.' },
        method: { type: 'string', enum: METHODS },
        path: {
          type: 'string',
          description:
            "The path under the service's API base, e.g. notifications or repos/OWNER/REPO/issues for GitHub.",
        },
        query: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Query parameters.',
        },
        body: { type: 'object', description: 'The JSON body, for POST, PUT and PATCH.' },
      },
      required: ['service', 'method', 'path'],
      additionalProperties: false,
    },
  };
}

const Arguments = z.object({
  service: z.string(),
  method: z
    .string()
    .transform((method) => method.toUpperCase())
    .pipe(z.enum(METHODS)),
  path: z.string().max(2048),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  body: z.unknown().optional(),
});

export interface ServiceCallContext {
  readonly bus: Bus;
  readonly run: {
    accountId: string;
    agentId: string;
    clientId: string | null;
    scopes: string[];
    services: readonly string[];
  };
  readonly requestId: string;
  /** How long one call may take (the proxy's own timeout is shorter), within the run's deadline. */
  timeoutMs(): number;
  /** The run's budget of calls; each call asked for takes one, refused or not. */
  readonly maxCalls: number;
  /** The most characters of an answer's body the model is shown. */
  readonly resultMaxChars: number;
}

/** Makes one call the model asked for and says what came of it, for the model and for the record. */
export async function callService(
  caller: ServiceCallContext,
  call: ToolCall,
  made: ServiceCallRecord[],
): Promise<string> {
  let parsed: z.infer<typeof Arguments>;
  try {
    parsed = Arguments.parse(JSON.parse(call.arguments));
  } catch {
    return refusal(
      'INVALID_REQUEST',
      'The arguments are not {service, method, path, query?, body?} as JSON; nothing was called.',
    );
  }
  if (!caller.run.services.includes(parsed.service)) {
    return refusal(
      'INSUFFICIENT_SCOPE',
      `This automation may call ${caller.run.services.join(', ')} only; nothing was called.`,
    );
  }
  const record: ServiceCallRecord = {
    service: parsed.service,
    method: parsed.method,
    path: parsed.path.slice(0, 2048),
    status: null,
    error: null,
  };
  made.push(record);
  if (made.length > caller.maxCalls) {
    record.error = 'RATE_LIMITED: the run had used all its service calls.';
    return refusal(
      'RATE_LIMITED',
      `This run has used all its ${caller.maxCalls} service calls; answer with what you have.`,
    );
  }
  try {
    const answer = await requestEndpoint(
      caller.bus,
      ProxyEndpoints.callForward,
      {
        accountId: caller.run.accountId,
        agentId: caller.run.agentId,
        clientId: caller.run.clientId,
        scopes: caller.run.scopes,
        service: parsed.service,
        method: parsed.method,
        path: parsed.path,
        query: parsed.query ?? {},
        body: parsed.body === undefined || parsed.body === null ? null : JSON.stringify(parsed.body),
      },
      { timeoutMs: caller.timeoutMs(), headers: { [MessageHeaders.requestId]: caller.requestId } },
    );
    record.status = answer.status;
    const shown =
      answer.body.length > caller.resultMaxChars ? answer.body.slice(0, caller.resultMaxChars) : answer.body;
    const cut = answer.truncated || shown.length < answer.body.length;
    return [
      `HTTP ${answer.status}${answer.contentType === null ? '' : ` (${answer.contentType})`}`,
      shown,
      ...(cut ? ['[The body was cut here: it was longer.]'] : []),
    ].join('\n');
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'SERVICE_UNAVAILABLE';
    const message = error instanceof AppError ? error.message : 'The proxy did not answer the call.';
    record.error = `${code}: ${message}`.slice(0, 500);
    return refusal(code, message);
  }
}

function refusal(code: string, message: string): string {
  return `Refused (${code}): ${message}`;
}
