import type { Broker } from '../broker.js';
import { topicLookup, type ApiDefinition, type PartitionTarget } from '../apis/types.js';

/**
 * The answer of a fault's error: with a partition `target` (a per-partition API and a rule
 * matching `topic`/`partitions`), only those partitions answer `errorCode` and the rest of the
 * request goes to `handle` (so the failed partitions change no state); otherwise the API's
 * declared `errorResponse` (Kafka's `getErrorResponse`) and the handler does not run. A request
 * whose client expects no answer (Produce acks=0) closes its connection (`ApiDefinition.unanswered`).
 */
export async function faultErrorResponse(
  api: ApiDefinition,
  version: number,
  body: unknown,
  errorCode: number,
  target: PartitionTarget | null,
  broker: Broker,
  handle: (rest: unknown) => Promise<unknown>,
): Promise<unknown> {
  const res = target && api.partitions
    ? await api.partitions.answer(body, version, topicLookup(broker), errorCode, target, handle)
    : api.errorResponse(body, version, errorCode);
  return api.unanswered ? api.unanswered(body, res) : res;
}

/** Whether `target` selects at least one partition the request names (false for APIs without per-partition errors). */
export function targetsAnyPartition(api: ApiDefinition, version: number, body: unknown, target: PartitionTarget, broker: Broker): boolean {
  return api.partitions?.targets(body, version, topicLookup(broker), target) ?? false;
}
