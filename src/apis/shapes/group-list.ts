/**
 * The group list of a request that names several groups, each answered by its own response
 * entry (DescribeGroups, DeleteGroups, OffsetFetch v8+, ConsumerGroupDescribe), declared from
 * field names in the API file.
 */
import type { GroupList } from '../types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

export interface GroupListFields {
  /** The request's list: group ids, or entries holding one in `id`. */
  readonly request: string;
  readonly id?: string;
  /** The response's list of per-group entries (each with `groupId`). */
  readonly response: string;
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
