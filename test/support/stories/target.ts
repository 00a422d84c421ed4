/**
 * What the project's end-to-end stories need of the system they run against, so that the same
 * story runs against the stack as the README starts it (process-target.ts) and against the
 * containers of GatewayContainer (container-target.ts): the public origin, the operator's `pag`
 * command beside it, and its database (to read the audit log). Every request of a story goes
 * through the target's `fetch`, which notes each answer, so that the audit story can hold the log
 * against every answer the stories got.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { Browser } from '@pag/testkit';

/** A running system: started before a test file's stories, stopped after. */
export interface RunningTarget {
  /** The public origin (PUBLIC_URL: the OAuth issuer too), without a trailing slash. */
  readonly url: string;
  /** The database the services use (a user that can read the audit schema). */
  readonly databaseUrl: string;
  /** `pag <argv>` as the operator runs it beside the system: its standard output, line by line; throws on failure. */
  pag(argv: readonly string[]): Promise<string[]>;
  stop(): Promise<void>;
}

/** One answer a story got: its X-Request-Id (null if it had none) and status. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  requestId: string | null;
}

export interface StoryTarget {
  readonly url: string;
  readonly databaseUrl: string;
  /** Every answer got through `fetch` (and browsers) so far, in order. */
  readonly answers: readonly Answer[];
  /** fetch that notes each answer; every request of a story goes through it. */
  readonly fetch: typeof fetch;
  /** A browser on the target whose requests go through `fetch`. */
  browser(): Browser;
  pag(...argv: string[]): Promise<string[]>;
}

export interface StoryTargetTimeouts {
  startMs: number;
  stopMs: number;
}

/**
 * The target of a test file's stories: `start` runs before the first story, the target stops
 * after the last. Stories read it only inside their hooks and tests, once it runs.
 */
export function storyTarget(start: () => Promise<RunningTarget>, timeouts: StoryTargetTimeouts): StoryTarget {
  let running: RunningTarget | undefined;
  const answers: Answer[] = [];
  beforeAll(async () => {
    running = await start();
  }, timeouts.startMs);
  afterAll(async () => {
    await running?.stop();
  }, timeouts.stopMs);
  const started = (): RunningTarget => {
    if (running === undefined) throw new Error('the story target is not running (did its start fail?)');
    return running;
  };
  const noting: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const { pathname } = new URL(request.url);
    answers.push({
      method: request.method,
      path: pathname,
      status: response.status,
      requestId: response.headers.get('x-request-id'),
    });
    return response;
  };
  return {
    get url() {
      return started().url;
    },
    get databaseUrl() {
      return started().databaseUrl;
    },
    answers,
    fetch: noting,
    browser: () => new Browser(started().url, {}, noting),
    pag: (...argv) => started().pag(argv),
  };
}
