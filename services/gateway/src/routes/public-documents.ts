/**
 * The gateway's own public routes: discovery index, quick-start, capabilities, OpenAPI and
 * llms.txt. The bodies depend only on PUBLIC_URL, the version and, for those listing endpoints
 * with their availability, the set of running services: each is rendered once per directory
 * version (a service starting or stopping renders it again), so serving one costs a write. The
 * OpenAPI document (265 kB, 60 ms to build) is built on its first request, not at start-up: most
 * gateways never serve it, and its bytes and the garbage of building it stayed resident
 * (docs/adr/0080).
 */
import { buildOpenApiDocument } from '@pag/contracts';
import type { DirectorySnapshot } from '@pag/kit';
import type { Request, Response } from 'express';
import { llmsTxt } from '../domain/llms-txt.ts';
import { discoveryIndex, publicCapabilities, quickStart } from '../domain/public-documents.ts';
import type { LocalHandler } from '../pipeline/dispatch.ts';
import { GATEWAY_VERSION } from '../version.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

function sendPrepared(body: string, contentType: string): LocalHandler {
  const bytes = Buffer.from(body);
  return (_req: Request, res: Response) => {
    res.status(200).type(contentType).send(bytes);
  };
}

/** A document rendered on its first request, then kept. */
function sendOnDemand(render: () => string, contentType: string): LocalHandler {
  let bytes: Buffer | undefined;
  return (_req: Request, res: Response) => {
    bytes ??= Buffer.from(render());
    res.status(200).type(contentType).send(bytes);
  };
}

/** A document rendered again only when the directory's version changed. */
function sendLive(
  directory: { snapshot(): DirectorySnapshot },
  render: (running: ReadonlySet<string>) => string,
  contentType: string,
): LocalHandler {
  let version: number | undefined;
  let bytes = Buffer.alloc(0);
  return (_req: Request, res: Response) => {
    const snapshot = directory.snapshot();
    if (snapshot.version !== version) {
      bytes = Buffer.from(render(snapshot.running));
      version = snapshot.version;
    }
    res.status(200).type(contentType).send(bytes);
  };
}

export function publicDocumentHandlers(options: {
  publicUrl: string;
  directory: { snapshot(): DirectorySnapshot };
}): Map<string, LocalHandler> {
  const { publicUrl, directory } = options;
  const index = sendLive(
    directory,
    (running) => JSON.stringify(discoveryIndex(GATEWAY_VERSION, running)),
    JSON_TYPE,
  );
  const json = (value: unknown) => sendPrepared(JSON.stringify(value), JSON_TYPE);
  return new Map<string, LocalHandler>([
    ['discoveryIndex', index],
    ['discoveryIndexAlias', index],
    ['discoveryIndexAtBase', index],
    ['quickStart', json(quickStart(publicUrl))],
    [
      'capabilities',
      sendLive(
        directory,
        (running) => JSON.stringify(publicCapabilities(GATEWAY_VERSION, running)),
        JSON_TYPE,
      ),
    ],
    [
      'openapi',
      sendOnDemand(
        () => JSON.stringify(buildOpenApiDocument({ serverUrl: publicUrl, version: GATEWAY_VERSION })),
        JSON_TYPE,
      ),
    ],
    ['llms', sendLive(directory, (running) => llmsTxt(publicUrl, running), TEXT_TYPE)],
  ]);
}
