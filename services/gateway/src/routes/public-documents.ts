/**
 * The gateway's own public routes: discovery index, quick-start, capabilities, OpenAPI and
 * llms.txt. The bodies are rendered once per app (they depend only on PUBLIC_URL and the
 * version), so serving them costs a write.
 */
import { buildOpenApiDocument } from '@pag/contracts';
import type { Request, Response } from 'express';
import { llmsTxt } from '../domain/llms-txt.ts';
import { discoveryIndex, publicCapabilities, quickStart } from '../domain/public-documents.ts';
import type { LocalHandler } from '../pipeline/dispatch.ts';
import { GATEWAY_VERSION } from '../version.ts';

function sendPrepared(body: string, contentType: string): LocalHandler {
  const bytes = Buffer.from(body);
  return (_req: Request, res: Response) => {
    res.status(200).type(contentType).send(bytes);
  };
}

const json = (value: unknown) => sendPrepared(JSON.stringify(value), 'application/json; charset=utf-8');

export function publicDocumentHandlers(options: { publicUrl: string }): Map<string, LocalHandler> {
  const { publicUrl } = options;
  const index = json(discoveryIndex(GATEWAY_VERSION));
  return new Map<string, LocalHandler>([
    ['discoveryIndex', index],
    ['discoveryIndexAlias', index],
    ['discoveryIndexAtBase', index],
    ['quickStart', json(quickStart(publicUrl))],
    ['capabilities', json(publicCapabilities(GATEWAY_VERSION))],
    ['openapi', json(buildOpenApiDocument({ serverUrl: publicUrl, version: GATEWAY_VERSION }))],
    ['llms', sendPrepared(llmsTxt(publicUrl), 'text/plain; charset=utf-8')],
  ]);
}
