/**
 * The assignment Kafka Connect's leader gives each worker in SyncGroup (protocol type `connect`),
 * read for the admin views only (the bytes are relayed untouched): Connect's
 * `ConnectProtocol.ASSIGNMENT_V0` (eager) and `IncrementalCooperativeConnectProtocol.ASSIGNMENT_V1`
 * (`compatible`, and `sessioned` as V2): an int16 version, then error (int16), leader (string),
 * leader URL (string), config offset (int64), the connectors and tasks assigned (each a connector
 * name and task ids, -1 standing for the connector itself), and from V1 the ones revoked and the
 * scheduled rebalance delay (int32 ms).
 */
import { Reader } from '../protocol/primitives.js';
import type { ConnectAssignmentView, ConnectTasksView } from './views.js';

/** The task id Connect uses for the connector itself (`ConnectProtocol.CONNECTOR_TASK`). */
const CONNECTOR_TASK = -1;

/** The assignment in `bytes`, or null when they are not one (empty: no SyncGroup yet). */
export function decodeConnectAssignment(bytes: Buffer): ConnectAssignmentView | null {
  if (bytes.length === 0) return null;
  try {
    const r = new Reader(bytes);
    const version = r.int16();
    if (version < 0) return null;
    const error = r.int16();
    const leader = r.string(false);
    const leaderUrl = r.string(false);
    const configOffset = Number(r.int64());
    const assigned = tasksOf(r);
    const revoked = version >= 1 ? tasksOf(r) : null;
    const delayMs = version >= 1 ? r.int32() : null;
    return { version, error, leader, leaderUrl, configOffset, assigned, revoked, delayMs };
  } catch {
    return null;
  }
}

function tasksOf(r: Reader): ConnectTasksView[] {
  const entries = r.nullableArray(false, () => ({ connector: r.string(false), ids: r.array(false, () => r.int32()) })) ?? [];
  return entries.map(({ connector, ids }) => ({ connector, runsConnector: ids.includes(CONNECTOR_TASK), tasks: ids.filter((id) => id !== CONNECTOR_TASK).sort((a, b) => a - b) }));
}
