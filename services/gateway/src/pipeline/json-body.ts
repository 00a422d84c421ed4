/**
 * Step 3: body limits and parsing, only for routes that take a body (routes without a body
 * schema, such as the streamed /api/v1/services/* ones, are left unread). JSON only, strict:
 * an object or array at the top level (the route's schema then says which), no key twice in one
 * object (findDuplicateKey), bounded by BODY_LIMIT_BYTES. Malformed JSON, an oversized body and
 * another media type become 400, 413 and 415. A parse error names where the JSON broke, never
 * the text around it: a body may carry a secret, and errors are logged and shown.
 *
 * A body in UTF-8 without a Content-Encoding (every agent's request in practice) is read here:
 * its bytes once, one decoding, one JSON.parse, and the duplicate-key check on the same text
 * (docs/adr/0073). express.json (body-parser) did the same through its generic machinery (the
 * media-type and charset parsing, iconv-lite, raw-body) and decoded the body a second time for
 * the duplicate-key check: about 5 % of the gateway thread's time per memory write. Any other
 * body (another UTF charset, a gzip, deflate or br Content-Encoding, a charset body-parser
 * refuses) still goes through express.json, which decodes or refuses it as before (UTF-32 and
 * UTF-7 now refused: see decode). Both paths
 * fail with the errors body-parser raises (`type`: entity.too.large, request.size.invalid,
 * request.aborted), which kit's error handler maps to the same AppErrors.
 */
import type { IncomingMessage } from 'node:http';
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { findDuplicateKey } from '../domain/duplicate-keys.ts';
import { state } from './state.ts';

export function jsonBody(limitBytes: number): RequestHandler {
  const raw = new WeakMap<IncomingMessage, { buffer: Buffer; charset: string }>();
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: () => true,
    // Called with the whole body and its charset before it is parsed; kept for the duplicate-key
    // check after.
    verify: (req, _res, buffer, charset) => void raw.set(req, { buffer, charset }),
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const route = state(res).route;
    if (route?.requestBody == null) {
      next();
      return;
    }
    const type = req.get('content-type');
    const hasBody = req.get('content-length') !== undefined || req.get('transfer-encoding') !== undefined;
    if (hasBody && type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      next(new AppError('UNSUPPORTED_MEDIA_TYPE', `The body must be JSON, not ${type.split(';')[0]}.`));
      return;
    }
    if (!plainUtf8(req, type)) {
      parse(req, res, (error?: unknown) => {
        const body = raw.get(req);
        if (error !== undefined) return next(parseFailure(error, body?.buffer));
        if (body === undefined) return next();
        const text = decode(body.buffer, body.charset);
        if (text === null) {
          return next(
            new AppError(
              'UNSUPPORTED_MEDIA_TYPE',
              `The body's charset ${body.charset} is not supported: send UTF-8.`,
            ),
          );
        }
        next(duplicateKeyFailure(text));
      });
      return;
    }
    // As body-parser: a request without a body (type-is's hasBody) is left as it is.
    if (
      req.headers['transfer-encoding'] === undefined &&
      Number.isNaN(Number(req.headers['content-length']))
    ) {
      next();
      return;
    }
    readBody(req, limitBytes).then(
      (buffer) => {
        // iconv-lite, which body-parser decodes with, drops a leading byte order mark.
        const text = stripBom(buffer.toString('utf8'));
        const parsed = parseStrict(text, buffer);
        if (parsed instanceof AppError) return next(parsed);
        req.body = parsed;
        next(duplicateKeyFailure(text));
      },
      // As body-parser: answer only once the client has sent the whole request.
      (error: unknown) => afterRequest(req, () => next(error)),
    );
  };
}

/** UTF-8 (or no charset: body-parser's default) and no Content-Encoding: the body is read here. */
function plainUtf8(req: IncomingMessage, type: string | undefined): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  if (type === undefined || !/charset/i.test(type)) return true;
  return /;\s*charset\s*=\s*"?utf-8"?\s*(?:;|$)/i.test(type);
}

/**
 * The body's bytes, bounded as raw-body (body-parser's reader) bounds them, failing with the
 * errors it raises: a declared or received length over the limit, a received length other than
 * the declared one, a request the client abandoned.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const header = req.headers['content-length'];
    const declared = header === undefined ? null : Number.parseInt(header, 10);
    if (declared !== null && declared > limit) {
      reject(bodyError(413, 'request entity too large', 'entity.too.large', { limit, length: declared }));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: unknown, body?: Buffer) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
      req.off('close', onClose);
      if (error === null && body !== undefined) resolve(body);
      else reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        finish(bodyError(413, 'request entity too large', 'entity.too.large', { limit, received }));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      if (declared !== null && received !== declared) {
        finish(bodyError(400, 'request size did not match content length', 'request.size.invalid', {}));
      } else finish(null, Buffer.concat(chunks, received));
    };
    const onAborted = () => finish(bodyError(400, 'request aborted', 'request.aborted', {}));
    const onError = (error: Error & { code?: string }) =>
      finish(error.code === 'ECONNRESET' ? bodyError(400, 'request aborted', 'request.aborted', {}) : error);
    // The client went away before the end: no 'end' will come.
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** An error as raw-body makes it (http-errors' status, expose, type), for kit's toAppError. */
function bodyError(status: number, message: string, type: string, details: Record<string, number>): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type, ...details });
}

/** Calls `then` once the request has been read to its end (the rest dropped) or was abandoned. */
function afterRequest(req: IncomingMessage, then: () => void): void {
  if (req.complete || req.destroyed) {
    then();
    return;
  }
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    then();
  };
  req.once('end', once);
  req.once('close', once);
  req.resume();
}

/**
 * The text express.json parsed, for the duplicate-key check: decoded in the body's own charset
 * (the check once read a UTF-16 body as UTF-8, and the JSON.parse of a key inside it threw out of
 * body-parser's callback, which ended the process). UTF-8 and UTF-16 are what TextDecoder knows
 * of the utf-* charsets body-parser lets through; null for another (UTF-32, UTF-7).
 */
function decode(buffer: Buffer, charset: string): string | null {
  try {
    return new TextDecoder(charset).decode(buffer);
  } catch {
    return null;
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** body-parser's strict JSON: an empty body is `{}`, else an object or array (JSON's whitespace first). */
function parseStrict(text: string, buffer: Buffer): unknown {
  if (text.length === 0) return {};
  const first = /^[ \t\n\r]*([^ \t\n\r])/.exec(text)?.[1];
  if (first !== '{' && first !== '[') {
    return parseFailure(
      { type: 'entity.parse.failed', message: first === undefined ? '' : 'strict' },
      buffer,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return parseFailure({ type: 'entity.parse.failed', message: (error as Error).message }, buffer);
  }
}

function duplicateKeyFailure(text: string): AppError | undefined {
  const duplicate = findDuplicateKey(text);
  if (duplicate === null) return undefined;
  return new AppError('MALFORMED_JSON', `The request body has the key "${duplicate}" twice in one object.`);
}

/** body-parser's syntax errors quote the body; ours say only where it broke. */
function parseFailure(error: unknown, body: Buffer | undefined): unknown {
  const parserError = error as { type?: string; message?: string };
  if (parserError?.type !== 'entity.parse.failed') return error;
  const first = body?.toString('utf8').trimStart()[0];
  if (first !== undefined && first !== '{' && first !== '[') {
    return new AppError('MALFORMED_JSON', 'The request body must be a JSON object or array.');
  }
  const position = /position (\d+)/.exec(parserError.message ?? '')?.[1];
  const where = position === undefined ? '' : ` (at character ${position})`;
  return new AppError('MALFORMED_JSON', `The request body is not valid JSON${where}.`);
}
