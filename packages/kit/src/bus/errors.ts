/**
 * The bus's own failures, as AppErrors a gateway can answer with directly: nobody answered in
 * time (504) or nobody listens at all (503); and, for the answering side, a streamed request its
 * requester cancelled (499). Their messages are safe to show: they name a subject, never a payload.
 */
import { AppError } from '@pag/contracts';

export class BusTimeoutError extends AppError {
  readonly subject: string;
  readonly timeoutMs: number;

  /** `message` replaces the default, e.g. for a durable publish nobody confirmed in time. */
  constructor(subject: string, timeoutMs: number, options: { cause?: unknown; message?: string } = {}) {
    super('UPSTREAM_TIMEOUT', options.message ?? `No reply on ${subject} within ${timeoutMs} ms.`, {
      cause: options.cause,
      expose: true,
    });
    this.name = 'BusTimeoutError';
    this.subject = subject;
    this.timeoutMs = timeoutMs;
  }
}

export class BusNoRespondersError extends AppError {
  readonly subject: string;

  /** `message` replaces the default, e.g. for a durable publish that no stream stores. */
  constructor(subject: string, options: { cause?: unknown; message?: string } = {}) {
    super('SERVICE_UNAVAILABLE', options.message ?? `Nothing answers on ${subject}.`, {
      cause: options.cause,
      expose: true,
    });
    this.name = 'BusNoRespondersError';
    this.subject = subject;
  }
}

/** The requester cancelled a streamed request (its client went away): nobody reads the answer. */
export class BusCancelledError extends AppError {
  readonly subject: string;

  constructor(subject: string) {
    super('CLIENT_CLOSED_REQUEST', `The request on ${subject} was cancelled by its requester.`, {
      expose: true,
    });
    this.name = 'BusCancelledError';
    this.subject = subject;
  }
}
