import type { Broker } from '../broker.js';
import { topicLookup, type ApiDefinition, type PartitionTarget } from '../apis/types.js';
import { groupListOf } from '../apis/shapes/group-list.js';

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
  groups: ((groupId: string) => boolean) | null = null,
): Promise<unknown> {
  const answer = (part: unknown): Promise<unknown> | unknown =>
    target && api.partitions ? api.partitions.answer(part, version, topicLookup(broker), errorCode, target, handle) : api.errorResponse(part, version, errorCode);
  const list = groups ? groupListOf(api, version) : null;
  const ids = list ? list.ids(body) : [];
  // A request naming groups the rule does not: those are handled, the others fail, each answer in
  // its place (adversarial trial, session 30: every group of an OffsetFetch v8 or a DeleteGroups
  // failed, and a rule's topic failed in the other groups too).
  const res = list && groups && !ids.every(groups)
    ? mergeGroups(list, ids, groups, (await answer(list.only(body, groups))) as object, (await handle(list.only(body, (g) => !groups(g)))) as object)
    : await answer(body);
  return api.unanswered ? api.unanswered(body, res) : res;
}

/** `handled`'s response with every group's entry in request order, those `failed` selects from `failed`. */
function mergeGroups(list: NonNullable<ReturnType<typeof groupListOf>>, ids: string[], selected: (groupId: string) => boolean, failed: object, handled: object): object {
  const failedEntries = new Map(list.entries(failed).map((e) => [e.groupId, e]));
  const handledEntries = new Map(list.entries(handled).map((e) => [e.groupId, e]));
  const entries = ids.map((g) => (selected(g) ? failedEntries : handledEntries).get(g)).filter((e): e is { groupId: string } => e !== undefined);
  return list.withEntries(handled, entries);
}

/** Whether `target` selects at least one partition the request names (false for APIs without per-partition errors). */
export function targetsAnyPartition(api: ApiDefinition, version: number, body: unknown, target: PartitionTarget, broker: Broker): boolean {
  return api.partitions?.targets(body, version, topicLookup(broker), target) ?? false;
}
