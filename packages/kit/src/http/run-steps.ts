/**
 * Express steps called in order on a request that is already an express request, without an
 * express app of their own (docs/adr/0074). The proxy's in-process entry runs its steps after
 * authentication this way on the request the gateway hands over: the very step functions its HTTP
 * listener's app runs, without what calling a second express app per request costs (its router's
 * layer matching over the path, and `app.handle` resetting the prototypes of the request and the
 * response to its own: V8 then sees objects of a new shape on every request, in every step).
 *
 * The same contract as express 5 for these steps: `next()` runs the next step, `next(error)` (any
 * truthy value) goes to the error step, a step that throws or whose promise rejects too; after the
 * last step, or when the error step itself fails, `done` is called as an app's `next` would be.
 * Not supported, since no step here uses them: `next('route')`, `next('router')`, paths.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

export type StepRunner = (req: Request, res: Response, done: NextFunction, error?: unknown) => void;

export function runSteps(steps: readonly RequestHandler[], failure: ErrorRequestHandler): StepRunner {
  return (req, res, done, error) => {
    let index = 0;
    let failed = false;
    const fail = (cause: unknown) => {
      // A failure of the error step itself goes out, as express passes it to the app's caller.
      if (failed) return done(cause);
      failed = true;
      settle(() => failure(cause, req, res, done));
    };
    const settle = (run: () => unknown) => {
      try {
        const result = run();
        if (result instanceof Promise) result.catch(fail);
      } catch (thrown) {
        fail(thrown);
      }
    };
    const next: NextFunction = (cause?: unknown) => {
      if (failed) return done(cause);
      if (cause) return fail(cause);
      const step = steps[index++];
      if (step === undefined) return done();
      settle(() => step(req, res, next));
    };
    if (error) fail(error);
    else next();
  };
}
