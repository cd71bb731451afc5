import { EMPTY_BYTES } from '../../protocol/primitives.js';
import type { JoinGroupResponse } from '../../protocol/messages/JoinGroupResponse.js';
import type { SyncGroupResponse } from '../../protocol/messages/SyncGroupResponse.js';

/** One protocol a member supports: its name and opaque metadata (a JoinGroup `Protocols` entry). */
export interface MemberProtocol {
  readonly name: string;
  readonly metadata: Buffer;
}

export interface ClassicGroupMemberInit {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  supportedProtocols: readonly MemberProtocol[];
  assignment?: Buffer;
}

/**
 * A member of a classic group (Kafka's `ClassicGroupMember`): identity, timeouts, the protocols it
 * supports with their metadata, its current assignment, and the JoinGroup / SyncGroup request it
 * has parked while the group rebalances (completed by calling the stored resolver).
 */
export class ClassicGroupMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly protocolType: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  supportedProtocols: readonly MemberProtocol[];
  assignment: Buffer;
  /** Resolves the member's parked JoinGroup; null when none is waiting. */
  awaitingJoin: ((response: JoinGroupResponse) => void) | null = null;
  /** Resolves the member's parked SyncGroup; null when none is waiting. */
  awaitingSync: ((response: SyncGroupResponse) => void) | null = null;
  /** Set while a newly added member has not yet received its first JoinGroup response. */
  isNew = false;
  /**
   * The key and callback of this member's session timer, built on first use by the `Rebalancer`
   * and kept: every heartbeat re-arms the timer, and a key string built anew each time costs a
   * flatten and a hash per timer-map lookup (the largest part of a heartbeat's own work).
   */
  sessionTimer: { readonly key: string; readonly expire: () => void } | null = null;

  constructor(init: ClassicGroupMemberInit) {
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = init.supportedProtocols;
    this.assignment = init.assignment ?? EMPTY_BYTES;
  }

  get isStaticMember(): boolean {
    return this.groupInstanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  /** The member's metadata for `protocolName`; throws when it does not support it (a coordinator bug). */
  metadata(protocolName: string): Buffer {
    const protocol = this.supportedProtocols.find((p) => p.name === protocolName);
    if (!protocol) throw new Error(`member ${this.memberId} does not support protocol ${protocolName}`);
    return protocol.metadata;
  }

  /** Whether `protocols` equals what the member joined with, names, metadata and order (`ClassicGroupMember.matches`). */
  matches(protocols: readonly MemberProtocol[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    return protocols.every((p, i) => {
      const mine = this.supportedProtocols[i]!;
      return mine.name === p.name && mine.metadata.equals(p.metadata);
    });
  }

  /** The member's vote: its most preferred protocol among `candidates` (`ClassicGroupMember.vote`). */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.supportedProtocols.find((p) => candidates.has(p.name));
    if (!choice) throw new Error(`member ${this.memberId} supports none of the candidate protocols`);
    return choice.name;
  }

  /**
   * Whether an expiring session timer should spare this member (`hasSatisfiedHeartbeat`):
   * a member parked in JoinGroup or SyncGroup cannot heartbeat, so it counts as alive, except a new
   * member, whose join is bounded by the new-member join timeout instead.
   */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.isAwaitingJoin || this.isAwaitingSync;
  }
}
