/**
 * Share sessions (Kafka 4.3.1's `ShareSessionCache`, `ShareSession`, and the session part of
 * `SharePartitionManager.newContext` / `acknowledgeSessionUpdate`): one per (group, member), with
 * its epoch and the partitions it fetches, created by a ShareFetch with epoch 0 and ended by epoch
 * -1 or by its connection closing. At most `group.share.max.share.sessions` sessions.
 * Kafka's cache links a connection to the last session it opened only; here a closed connection
 * ends every session it opened (a connection that opened sessions for several members leaves none
 * behind).
 */
import { ErrorCode } from '../protocol/errors.js';
import { SharePartitionError } from './share-partition.js';

export interface SessionPartition {
  topicId: string;
  partition: number;
}

export interface ShareSession {
  readonly groupId: string;
  readonly memberId: string;
  epoch: number;
  /** The partitions fetched, in the order they were added. */
  readonly partitions: Map<string, SessionPartition>;
  readonly connectionId: string;
}

/** `ShareRequestMetadata.nextEpoch`: 1, 2, ..., Integer.MAX_VALUE, then 1 again. */
export function nextEpoch(epoch: number): number {
  return epoch < 0 ? 0 : epoch === 2147483647 ? 1 : epoch + 1;
}

function partitionKey(p: SessionPartition): string {
  return `${p.topicId}:${p.partition}`;
}

const NOT_FOUND = 'The share session was not found.';
const BAD_EPOCH = 'The share session epoch is invalid.';

export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>();
  /** The sessions each connection opened (Kafka's `connectionIdToSessionMap`, which keeps the last). */
  private readonly byConnection = new Map<string, Set<string>>();
  /** The groups each connection opened sessions for, kept until it closes (for `groupsOfClosedConnection`). */
  private readonly groupsByConnection = new Map<string, Set<string>>();

  constructor(private readonly maxSessions: number) {}

  private static key(groupId: string, memberId: string): string {
    return `${groupId}\u0000${memberId}`;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(ShareSessionCache.key(groupId, memberId));
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * A ShareFetch's session (`newContext`): epoch 0 opens a new session (replacing the member's
   * old one) with `partitions`; -1 must find one (the final fetch); any other epoch must match the
   * session's, which then takes `partitions` and drops `forgotten`, and moves to the next epoch.
   * Returns the session and whether it is new. Throws SharePartitionError: SHARE_SESSION_NOT_FOUND,
   * INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_LIMIT_REACHED.
   */
  forFetch(groupId: string, memberId: string, epoch: number, partitions: readonly SessionPartition[], forgotten: readonly SessionPartition[], connectionId: string): { session: ShareSession; isNew: boolean } {
    const key = ShareSessionCache.key(groupId, memberId);
    if (epoch === 0) {
      this.remove(groupId, memberId);
      if (this.sessions.size >= this.maxSessions) throw new SharePartitionError(ErrorCode.SHARE_SESSION_LIMIT_REACHED, 'The limit of share sessions has been reached.');
      const session: ShareSession = { groupId, memberId, epoch: 1, partitions: new Map(partitions.map((p) => [partitionKey(p), p])), connectionId };
      this.sessions.set(key, session);
      let keys = this.byConnection.get(connectionId);
      if (!keys) this.byConnection.set(connectionId, (keys = new Set()));
      keys.add(key);
      let groups = this.groupsByConnection.get(connectionId);
      if (!groups) this.groupsByConnection.set(connectionId, (groups = new Set()));
      groups.add(groupId);
      return { session, isNew: true };
    }
    const session = this.sessions.get(key);
    if (session === undefined) throw new SharePartitionError(ErrorCode.SHARE_SESSION_NOT_FOUND, NOT_FOUND);
    if (epoch === -1) return { session, isNew: false };
    if (session.epoch !== epoch) throw new SharePartitionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, BAD_EPOCH);
    for (const p of partitions) if (!session.partitions.has(partitionKey(p))) session.partitions.set(partitionKey(p), p);
    for (const p of forgotten) session.partitions.delete(partitionKey(p));
    session.epoch = nextEpoch(session.epoch);
    return { session, isNew: false };
  }

  /** A ShareAcknowledge's session (`acknowledgeSessionUpdate`): epoch 0 is INVALID_SHARE_SESSION_EPOCH. */
  forAcknowledge(groupId: string, memberId: string, epoch: number): ShareSession {
    if (epoch === 0) throw new SharePartitionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, BAD_EPOCH);
    const session = this.get(groupId, memberId);
    if (session === undefined) throw new SharePartitionError(ErrorCode.SHARE_SESSION_NOT_FOUND, NOT_FOUND);
    if (epoch === -1) return session;
    if (session.epoch !== epoch) throw new SharePartitionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, BAD_EPOCH);
    session.epoch = nextEpoch(session.epoch);
    return session;
  }

  remove(groupId: string, memberId: string): ShareSession | undefined {
    const key = ShareSessionCache.key(groupId, memberId);
    const session = this.sessions.get(key);
    if (session === undefined) return undefined;
    this.sessions.delete(key);
    const keys = this.byConnection.get(session.connectionId);
    keys?.delete(key);
    if (keys?.size === 0) this.byConnection.delete(session.connectionId);
    return session;
  }

  /** Whether any member of `groupId` has a session. */
  hasGroup(groupId: string): boolean {
    for (const s of this.sessions.values()) if (s.groupId === groupId) return true;
    return false;
  }

  /**
   * The groups a closed connection ever opened sessions for (Kafka's `ShareSessionCache` checks
   * each such group for sessions left when the connection closes: `checkAndNotifyListenersOnGroupEmpty`).
   */
  groupsOfClosedConnection(connectionId: string): string[] {
    const groups = [...(this.groupsByConnection.get(connectionId) ?? [])];
    this.groupsByConnection.delete(connectionId);
    return groups;
  }

  /** The sessions the closed connection opened, removed (their members' records are then released). */
  removeForConnection(connectionId: string): ShareSession[] {
    const keys = this.byConnection.get(connectionId);
    if (keys === undefined) return [];
    this.byConnection.delete(connectionId);
    const removed: ShareSession[] = [];
    for (const key of keys) {
      const session = this.sessions.get(key);
      if (session === undefined || session.connectionId !== connectionId) continue;
      this.sessions.delete(key);
      removed.push(session);
    }
    return removed;
  }
}
