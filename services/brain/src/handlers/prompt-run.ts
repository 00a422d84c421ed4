/**
 * brain.prompt.run (from the trigger service): carries out a trigger's prompt as its creating
 * agent for one run, with the run's scopes (prompt/run-prompt.ts). The message names the account;
 * NATS lets only the trigger service publish it.
 */
import { BrainServiceEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { runPrompt } from '../prompt/run-prompt.ts';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const promptRun = handle(BrainServiceEndpoints.promptRun, (caller, request, deps: BrainHandlerDeps) =>
  runPrompt(caller, request, deps),
);
