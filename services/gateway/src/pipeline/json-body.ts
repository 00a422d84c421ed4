/**
 * Step 3: body limits and parsing, only for routes that take a body (routes without a body
 * schema, such as the streamed /api/v1/services/* ones, are left unread). JSON only, strict:
 * an object or array at the top level (the route's schema then says which), no key twice in one
 * object (findDuplicateKey), bounded by BODY_LIMIT_BYTES. Malformed JSON, an oversized body and
 * another media type become 400, 413 and 415. A parse error names where the JSON broke, never
 * the text around it: a body may carry a secret, and errors are logged and shown.
 *
 * The duplicate-key check reads the text in the body's own charset. It once read every body as
 * UTF-8: a UTF-16 body (which body-parser accepts and decodes) then made the check throw inside
 * body-parser's callback, outside any handler, and that ended the process (docs/adr/0073).
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
      const duplicate = findDuplicateKey(text);
      if (duplicate !== null) {
        return next(
          new AppError('MALFORMED_JSON', `The request body has the key "${duplicate}" twice in one object.`),
        );
      }
      next();
    });
  };
}

/**
 * The text body-parser parsed, decoded again in its charset. UTF-8 and UTF-16 are what
 * TextDecoder knows of the utf-* charsets body-parser lets through; null for another (UTF-32,
 * UTF-7, which iconv-lite decodes): those are refused rather than checked wrongly.
 */
function decode(buffer: Buffer, charset: string): string | null {
  try {
    return new TextDecoder(charset).decode(buffer);
  } catch {
    return null;
  }
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
