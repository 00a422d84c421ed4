/**
 * The MCP endpoint's HTTP body: JSON-RPC 2.0 messages (MCP Streamable HTTP, stateless: every POST
 * carries one message or a batch, and each answer is JSON). Only the envelope is checked here; the
 * MCP server checks each message against the protocol and answers a JSON-RPC error for a bad one.
 */
import { z } from 'zod';

const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z
      .string()
      .optional()
      .meta({ examples: ['tools/call'] }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('A JSON-RPC 2.0 request, notification or response.');

export const McpRequest = z
  .union([JsonRpcMessage, z.array(JsonRpcMessage).min(1)])
  .describe('One JSON-RPC message, or a batch of them.');

const JsonRpcReply = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.looseObject({ code: z.number().int(), message: z.string() }).optional(),
  })
  .describe('A JSON-RPC 2.0 response: a result, or an error (a tool refusal is a result with isError).');

export const McpReply = z
  .union([JsonRpcReply, z.array(JsonRpcReply)])
  .describe('The answer to each request of the message or batch, in order.');

/** What a 401 on the MCP endpoint asks for: the owner's knowledge and chat (services by step-up). */
export const MCP_CHALLENGE_SCOPES = ['knowledge', 'chat'] as const;
