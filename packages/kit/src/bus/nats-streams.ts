/**
 * Declares JetStream streams and durable consumers idempotently, so every replica can run the
 * same start-up code: create when missing, update when the definition changed, and take the
 * update path when another replica created it between our lookup and our create.
 */

import type { JetStreamManager } from '@nats-io/jetstream';
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  StorageType,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { StreamDefinition } from './types.ts';

/** JetStream's "stream name already in use" (a concurrent create). */
const STREAM_NAME_IN_USE = 10058;

function hasCode(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

export async function ensureNatsStream(jsm: JetStreamManager, definition: StreamDefinition): Promise<void> {
  const subjects = [...definition.subjects];
  try {
    const info = await jsm.streams.info(definition.name);
    if (!sameMembers(info.config.subjects ?? [], subjects))
      await jsm.streams.update(definition.name, { subjects });
    return;
  } catch (error) {
    if (!hasCode(error, JetStreamApiCodes.StreamNotFound)) throw error;
  }
  try {
    await jsm.streams.add({ name: definition.name, subjects, storage: StorageType.File });
  } catch (error) {
    if (!hasCode(error, STREAM_NAME_IN_USE)) throw error;
    await jsm.streams.update(definition.name, { subjects });
  }
}

export interface NatsConsumerSettings {
  ackWaitMs: number;
  /** -1: unlimited, as JetStream spells it. */
  maxDeliver: number;
}

export async function ensureNatsConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  settings: NatsConsumerSettings,
): Promise<void> {
  const wanted = { ack_wait: nanos(settings.ackWaitMs), max_deliver: settings.maxDeliver };
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.ack_wait !== wanted.ack_wait || info.config.max_deliver !== wanted.max_deliver) {
      await jsm.consumers.update(stream, durable, wanted);
    }
    return;
  } catch (error) {
    if (hasCode(error, JetStreamApiCodes.StreamNotFound)) {
      throw new Error(`stream ${stream} does not exist; call ensureStream first`, { cause: error });
    }
    if (!hasCode(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
  }
  try {
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...wanted,
    });
  } catch (error) {
    // Created by another replica meanwhile: align its settings instead.
    await jsm.consumers.update(stream, durable, wanted).catch(() => Promise.reject(error));
  }
}

function sameMembers(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}
