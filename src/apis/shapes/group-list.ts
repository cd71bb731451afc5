/**
 * The group list of a request that names several groups, each answered by its own response
 * entry (DescribeGroups, DeleteGroups, OffsetFetch v8+, ConsumerGroupDescribe), declared from
 * field names in the API file.
 */
import type { ApiDefinition, GroupList } from '../types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

export interface GroupListFields {
  /** The request's list: group ids, or entries holding one in `id`. */
  readonly request: string;
  readonly id?: string;
  /** The response's list of per-group entries (each with `groupId`). */
  readonly response: string;
}

/**
 * The group list of `api` at `version` when its requests name several groups each answered apart
 * (routed `group-coordinators`), else null. The simulated cluster answers each group by its own
 * coordinator from it, and a fault rule on some groups fails only those (faults/error-response.ts).
 */
export function groupListOf(api: ApiDefinition, version: number): GroupList | null {
  const routing = typeof api.routing === 'function' ? api.routing(version) : api.routing;
  return routing.to === 'group-coordinators' ? routing.groups : null;
}

/** E.g. DeleteGroups: `groupList({ request: 'groupsNames', response: 'results' })`. */
export function groupList<Req, Res>(fields: GroupListFields): GroupList<Req, Res> {
  const entriesOf = (req: Req): any[] => (req as Obj)[fields.request] ?? [];
  const idOf = (entry: any): string => (fields.id === undefined ? entry : entry[fields.id]);
  return {
    ids: (req) => entriesOf(req).map(idOf),
    only: (req, keep) => ({ ...(req as Obj), [fields.request]: entriesOf(req).filter((e) => keep(idOf(e))) }) as Req,
    entries: (res) => (res as Obj)[fields.response] ?? [],
    withEntries: (res, entries) => ({ ...(res as Obj), [fields.response]: entries }) as Res,
  };
}
