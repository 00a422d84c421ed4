/**
 * Step 3: body limits and parsing, only for routes that take a body. JSON only, strict (objects
 * and arrays at the top level), bounded by BODY_LIMIT_BYTES. Malformed JSON, an oversized body
 * and another media type become 400, 413 and 415 in the error handler.
 */
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import { state } from './state.ts';

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: true, type: () => true });
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
    parse(req, res, next);
  };
}
