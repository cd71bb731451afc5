/**
 * What the console shows over time and the live-update feed: per group a timeline (rebalances
 * with their cause, members joining and leaving, state changes, coordinator moves, commits), the
 * member that made each partition's last commit, and lag samples for the lag chart; plus the
 * `kmc_rebalances_total` and `kmc_offset_commits_total` counters.
 *
 * It reads groups only through the admin views (src/admin/groups.ts), never the coordinators'
 * internals, so it sees what `GET /groups/{id}` sees. It looks:
 * - shortly after requests that name a group complete (the fault registry's request-done hook
 *   only notes the group, so the request path pays for a map update; the look is batched);
 * - every `sampleIntervalMs` of real time at every group it follows (later when looks take long:
 *   `nextLookDelayMs`), which catches what timers do (session and rebalance timeouts, retention)
 *   and samples lag as producers append; while it follows MAX_TRACKED_GROUPS, only those
 *   (`lookAtFollowed`), else every group the broker lists.
 *
 * Causes are inferred from what changed between two looks, as Kafka's own log lines would name
 * them: a member that appeared (`join`), one that went away after its own LeaveGroup or leaving
 * heartbeat (`leave`) or without one (`session timeout`, which includes a rebalance timeout), a
 * changed subscription (`subscription change`), the coordinator moving to another broker
 * (`coordinator move`), otherwise `rejoin` (classic) or `metadata change` (consumer and share
 * groups: regex resolution, partitions added, share partitions initialized).
 */
import type { Broker } from '../broker.js';
import type { FaultRegistry } from '../faults/registry.js';
import type { RequestLogEntry } from '../faults/request-log.js';
import type { ServerClock } from '../util/manual-time.js';
import { performance } from 'node:perf_hooks';
import { Slicer } from '../util/slices.js';
import { describeGroupHeader, eachGroupInSlices, partitionOwners } from './groups.js';
import { classicStatePath } from './classic-state-path.js';
import { GroupLag, LagBudget, TopicMoves, type CommittedEntry } from './group-lag.js';
import type { GroupHeader } from './groups.js';
import type { GroupMemberView } from './views.js';

import type { ChangeNotice, GroupHistory, RebalanceCause, TimelineEvent } from './views.js';

export type { ChangeNotice, GroupHistory, RebalanceCause, TimelineEvent } from './views.js';

const MAX_EVENTS = 200;
const MAX_COMMIT_EVENTS = 100;
/** Groups looked at per turn of the event loop at most (plus `SLICE_BUDGET_MS`) after requests named them. */
const GROUPS_PER_SLICE = 500;
/** Groups with a timeline kept at once; the least recently changed ones are dropped beyond. */
const MAX_TRACKED_GROUPS = 2000;
/**
 * Bounds on what one timeline event holds, so that 2,000 groups' timelines stay small whatever
 * ids clients choose (adversarial trial 11: 32 KB client ids kept verbatim, 4 MB per history):
 * longer ids and client ids are cut (ending in an ellipsis), a `seen` event names the first client
 * ids, a commit event the first partitions and how many more.
 */
const MAX_EVENT_TEXT = 256;
const MAX_EVENT_LIST = 50;
/** What `kmc_offset_commits_total` counts: requests of these answered without an error. */
const COMMIT_APIS = new Set(['OffsetCommit', 'TxnOffsetCommit']);
const LEAVING_APIS = new Set(['LeaveGroup', 'ConsumerGroupHeartbeat', 'ShareGroupHeartbeat']);
/**
 * Requests after which the transaction coordinator is looked at soon (`transactions` in the
 * notice), as after a request naming a group. What changes without one (markers written after
 * EndTxn is answered, a timed-out transaction aborted, Produce v12's implicit adds) shows at the
 * next periodic look.
 */
const TRANSACTION_APIS = new Set(['InitProducerId', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn']);

/**
 * Real-time ms between two prunings of the commit counts of groups gone by the periodic look (a
 * scrape of /metrics prunes them too): a look at 100,000 groups' counts took most of an idle
 * server's CPU when it came every second.
 */
const COUNTS_PRUNE_EVERY_MS = 60_000;

/** A periodic look begins at least this many times its predecessor's duration after that one began. */
const LOOK_SPACING = 10;

/**
 * When the next periodic look begins, in ms after the last one ended: `everyMs`, or later when
 * looks take long, so that looking takes at most ~1/`LOOK_SPACING` of the time (100,000 groups
 * looked at each second kept an idle server at 30-40% of a core; adversarial trial 27).
 */
export function nextLookDelayMs(everyMs: number, lastLookMs: number): number {
  return Math.max(everyMs, LOOK_SPACING * lastLookMs - lastLookMs);
}

interface MemberSig {
  clientId: string;
  subscription: string;
}

interface Track {
  type: string;
  state: string;
  generation: number;
  coordinator: number;
  members: Map<string, MemberSig>;
  /** Changes seen since the last generation bump: the next rebalance's cause. */
  pending: { joined: number; left: number; timedOut: number; subscription: number; coordinator: number };
  events: TimelineEvent[];
  commitEvents: TimelineEvent[];
  /** The store's `versionOf` the group when its offsets were last read: unchanged, they are not read again. */
  offsetsVersion: number;
  /** Per topic, by partition: the committed offset and commit time last seen. */
  commits: Map<string, Array<{ offset: bigint; at: bigint } | undefined>>;
  lastCommitBy: Map<string, string | null>;
  lag: GroupLag;
}

/** Requests seen for one group since its last look. */
interface Activity {
  /**
   * OffsetCommit requests answered, with an error or not (one answered with an error may have
   * committed some partitions). TxnOffsetCommit ones are not: their offsets are committed by the
   * transaction's COMMIT marker, if ever; the look that finds them names no request.
   */
  commits: number;
  /** The first error of the last of those, if it had one. */
  lastCommitError: string | null;
  /** The member and client id of the last commit (the log's entry is reused, so not kept). */
  lastCommitMemberId: string | null;
  lastCommitClientId: string;
  /** Member ids of those commits ('' for a standalone commit). */
  committers: Set<string>;
  /** Members whose LeaveGroup or ConsumerGroupHeartbeat completed (a member gone after one left on its own). */
  leaving: Set<string>;
}

export interface GroupWatchOptions {
  broker: Broker;
  faults: FaultRegistry;
  clock: ServerClock;
  /** The coordinator of a group (simulated cluster); default: this broker. */
  coordinatorOf?: (groupId: string) => number;
  /** How long after a request the groups it named are looked at (ms); default 100. */
  settleMs?: number;
  /** Real-time period of the look at every group (ms); default 1000; 0: never. */
  sampleIntervalMs?: number;
  /** The wall clock of lag samples (ms); default `Date.now`. */
  wallClock?: () => number;
}

/** One look at groups: those listed, those whose look found a change, and the topics' offset moves it counted. */
class LookPass {
  readonly seen = new Set<string>();
  readonly changed: string[] = [];
  readonly moves: TopicMoves;

  constructor(broker: Broker) {
    this.moves = new TopicMoves(broker);
  }
}

export class GroupWatch {
  private readonly tracks = new Map<string, Track>();
  private readonly lagBudget = new LagBudget();
  private readonly dirty = new Map<string, Activity>();
  private readonly listeners = new Set<(notice: ChangeNotice) => void>();
  private readonly rebalances = new Map<string, number>();
  private readonly commitCounts = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | null = null;
  private sampleTimer: NodeJS.Timeout | null = null;
  private readonly stopListening: () => void;
  private overviewSig = '';
  /** The transaction coordinator's `changeCount` at the last notice. */
  private transactionsSeen: number;
  /** A TxnOffsetCommit was answered since the last notice: a transaction's pending offsets moved (not its metadata). */
  private pendingOffsetsMoved = false;
  private faultsChanged = false;
  private closed = false;
  /** The periodic look (`sample`) running, if one is. */
  private sampling: Promise<void> | null = null;
  /** The look `touched` asked for after the one running. */
  private resampling: Promise<void> | null = null;
  /** What `touched` was told since the last notice. */
  private readonly touches: Pick<ChangeNotice, 'faults' | 'clock'> = { faults: false, clock: false };
  /** The look at the groups requests named (`flush`) running, if one is, and whether another was asked for meanwhile. */
  private flushing: Promise<void> | null = null;
  private flushAgain = false;
  /** When the periodic look last pruned `commitCounts` (`performance.now()`). */
  private countsPrunedAt = -Infinity;
  /** Set after the first look: a group first seen later was created since, its generations all rebalances seen here. */
  private started = false;

  constructor(private readonly options: GroupWatchOptions) {
    this.transactionsSeen = options.broker.transactions.changeCount;
    this.stopListening = options.faults.onRequestDone((entry) => this.onRequest(entry));
    const every = options.sampleIntervalMs ?? 1000;
    // The first look in slices too: a data directory of a hundred thousand groups must not hold
    // the Kafka port for seconds as the admin API starts.
    const began = performance.now();
    void this.sample().finally(() => {
      this.started = true;
      if (every > 0) this.schedulePeriodicLook(every, performance.now() - began);
    });
  }

  /** The next periodic look (`nextLookDelayMs`), and the one after it when it is done. */
  private schedulePeriodicLook(everyMs: number, lastLookMs: number): void {
    if (this.closed) return;
    this.sampleTimer = setTimeout(() => {
      const began = performance.now();
      void this.sample().finally(() => this.schedulePeriodicLook(everyMs, performance.now() - began));
    }, nextLookDelayMs(everyMs, lastLookMs));
    this.sampleTimer.unref();
  }

  /** Calls `listener` after each look that found a change; returns the function that removes it. */
  subscribe(listener: (notice: ChangeNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Tells subscribers about a change made through the admin API (fault rules, the clock), with a
   * look at every group (in slices) begun now or, while one runs, right after it. Resolves when
   * that look's notice is out.
   */
  touched(what: Partial<Pick<ChangeNotice, 'faults' | 'clock'>>): Promise<void> {
    if (what.faults === true) this.touches.faults = true;
    if (what.clock === true) this.touches.clock = true;
    if (this.sampling === null) return this.sample();
    this.resampling ??= this.sampling.then(() => {
      this.resampling = null;
      return this.sample();
    });
    return this.resampling;
  }

  history(groupId: string): GroupHistory | null {
    const track = this.tracks.get(groupId);
    if (!track) return null;
    const events = [...track.events, ...track.commitEvents].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    return {
      groupId,
      events,
      lastCommitBy: Object.fromEntries(track.lastCommitBy),
      lag: { partitions: [...track.lag.keys], samples: track.lag.samples.map((s) => ({ t: s.t, lag: [...s.lag] })) },
    };
  }

  /** Rebalances seen since start, by group type and cause. */
  rebalanceCounts(): Array<{ groupType: string; cause: string; count: number }> {
    return [...this.rebalances].map(([key, count]) => {
      const [groupType, cause] = key.split('\u0000') as [string, string];
      return { groupType, cause, count };
    });
  }

  /** OffsetCommit and TxnOffsetCommit requests answered without an error since start, by group. */
  commitCountsByGroup(): ReadonlyMap<string, number> {
    this.pruneCommitCounts();
    return this.commitCounts;
  }

  /** Groups gone (deleted, expired) lose their counts, so group ids cannot pile up labels or memory. */
  private pruneCommitCounts(): void {
    for (const groupId of this.commitCounts.keys()) if (this.isGone(groupId)) this.commitCounts.delete(groupId);
  }

  private isGone(groupId: string): boolean {
    return !this.options.broker.offsets.hasOffsets(groupId) && this.options.broker.groups.typeOf(groupId) === null;
  }

  close(): void {
    this.closed = true;
    this.stopListening();
    if (this.sampleTimer) clearTimeout(this.sampleTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.listeners.clear();
  }

  /** On the request path: note the groups only. */
  private onRequest(entry: Readonly<RequestLogEntry>): void {
    if (entry.faults.length > 0) this.faultsChanged = true;
    if (entry.groups.length === 0) {
      if (entry.faults.length > 0 || TRANSACTION_APIS.has(entry.api)) this.scheduleFlush();
      return;
    }
    if (entry.api === 'TxnOffsetCommit' && entry.outcome === 'response') this.pendingOffsetsMoved = true;
    for (const groupId of entry.groups) {
      let activity = this.dirty.get(groupId);
      if (!activity) this.dirty.set(groupId, (activity = { commits: 0, lastCommitError: null, lastCommitMemberId: null, lastCommitClientId: '', committers: new Set(), leaving: new Set() }));
      if (entry.outcome === 'response' && entry.api === 'OffsetCommit') {
        activity.commits++;
        activity.lastCommitError = entry.error;
        activity.lastCommitMemberId = entry.memberId;
        activity.lastCommitClientId = entry.clientId;
        activity.committers.add(entry.memberId ?? '');
      }
      if (entry.outcome === 'response' && entry.error === null && COMMIT_APIS.has(entry.api)) this.commitCounts.set(groupId, (this.commitCounts.get(groupId) ?? 0) + 1);
      if (entry.memberId !== null && LEAVING_APIS.has(entry.api)) activity.leaving.add(entry.memberId);
    }
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== null || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, this.options.settleMs ?? 100);
    this.flushTimer.unref();
  }

  /** Looks at the groups requests named since the last flush, in slices; one at a time (one asked for meanwhile runs after it). */
  private flush(): void {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    this.flushing = this.flushInSlices()
      .catch((err: unknown) => this.options.broker.log.error({ err }, 'group watch: a look at the groups requests named failed'))
      .finally(() => {
        this.flushing = null;
        if (!this.flushAgain || this.closed) return;
        this.flushAgain = false;
        this.flush();
      });
  }

  private async flushInSlices(): Promise<void> {
    const batch = [...this.dirty];
    this.dirty.clear();
    const pass = new LookPass(this.options.broker);
    const slicer = new Slicer(GROUPS_PER_SLICE);
    for (const [groupId, activity] of batch) {
      await slicer.next();
      if (this.closed) return;
      // A look since (the periodic one) took the requests seen since this batch began with it.
      const later = this.dirty.get(groupId);
      if (later) {
        this.dirty.delete(groupId);
        mergeActivity(activity, later);
      }
      if (this.look(groupId, activity, pass)) pass.changed.push(groupId);
    }
    this.notify(pass);
  }

  /**
   * The periodic look: as `lookAtAll`, the groups listed and looked at in slices (a slice of
   * groups or ~10 ms per turn of the event loop), so that ten thousand groups do not hold the
   * Kafka port for the whole look (issue #16 item 5: 650-750 ms each second). One at a time: a
   * sample due while one runs is that one. Resolves when the look is done.
   */
  sample(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.sampling ??= this.lookInSlices().finally(() => {
      this.sampling = null;
    });
    return this.sampling;
  }

  private async lookInSlices(): Promise<void> {
    const pass = new LookPass(this.options.broker);
    if (this.tracks.size < MAX_TRACKED_GROUPS) {
      await eachGroupInSlices(this.options.broker, (summary) => {
        if (!this.closed) this.lookAtListed(pass, summary.groupId);
      });
    } else {
      await this.lookAtFollowed(pass);
    }
    if (this.closed) return;
    this.lookAtUnlisted(pass);
    // Groups gone (deleted, expired) lose their commit counts here too, not only when /metrics is
    // scraped: 100,000 groups committed to and deleted kept theirs (adversarial trial, session 21).
    if (performance.now() - this.countsPrunedAt >= COUNTS_PRUNE_EVERY_MS) {
      this.countsPrunedAt = performance.now();
      const slicer = new Slicer(GROUPS_PER_SLICE);
      for (const groupId of [...this.commitCounts.keys()]) {
        await slicer.next();
        if (this.isGone(groupId)) this.commitCounts.delete(groupId);
      }
    }
    if (this.closed) return;
    this.notify(pass);
  }

  /** Looks at a group the broker lists (or a followed one), with the requests seen for it since the last look. */
  private lookAtListed(pass: LookPass, groupId: string): void {
    pass.seen.add(groupId);
    const activity = this.dirty.get(groupId) ?? null;
    this.dirty.delete(groupId);
    if (this.look(groupId, activity, pass)) pass.changed.push(groupId);
  }

  /**
   * Looks at the followed groups only, in slices: with MAX_TRACKED_GROUPS followed, a group not
   * followed would not be (`look`), so listing and summarizing every group is work for nothing (an
   * idle server with 100,000 groups spent ~12% of a core on it, and its RSS swung by 50-500 MiB
   * with the garbage). A followed group gone is found gone here; the next look lists every group
   * again, to follow one in its place.
   */
  private async lookAtFollowed(pass: LookPass): Promise<void> {
    const slicer = new Slicer(GROUPS_PER_SLICE);
    for (const groupId of [...this.tracks.keys()].sort()) {
      await slicer.next();
      if (this.closed) return;
      this.lookAtListed(pass, groupId);
    }
  }

  /** Looks at the followed groups the broker no longer lists (deleted, expired). */
  private lookAtUnlisted(pass: LookPass): void {
    for (const groupId of this.tracks.keys()) if (!pass.seen.has(groupId) && this.look(groupId, null, pass)) pass.changed.push(groupId);
  }

  private notify(pass: LookPass): void {
    const overviewSig = this.overviewSignature(pass.moves);
    const groups = pass.changed;
    const overview = overviewSig !== this.overviewSig || groups.length > 0;
    this.overviewSig = overviewSig;
    const faults = this.faultsChanged || this.touches.faults;
    const clock = this.touches.clock;
    this.faultsChanged = this.touches.faults = this.touches.clock = false;
    const transactionsNow = this.options.broker.transactions.changeCount;
    const transactions = transactionsNow !== this.transactionsSeen || this.pendingOffsetsMoved;
    this.transactionsSeen = transactionsNow;
    this.pendingOffsetsMoved = false;
    if (!overview && !faults && !clock && !transactions) return;
    const notice: ChangeNotice = { groups, overview, faults, clock, transactions };
    for (const listener of this.listeners) listener(notice);
  }

  /** Topics, their start and end offsets and the brokers' states: what the overview shows besides groups. */
  private overviewSignature(moves: TopicMoves): string {
    const { broker } = this.options;
    let sig = broker.cluster.brokers().map((b) => (b.up ? '1' : '0')).join('');
    for (const topic of broker.topics.list()) {
      if (topic.internal) continue;
      sig += `|${topic.name}:${topic.id}:${topic.partitionCount}:${moves.of(topic.name)}`;
    }
    return sig;
  }

  /** Compares the group with what was seen last; records what changed. Returns whether anything did. */
  private look(groupId: string, activity: Activity | null, pass: LookPass): boolean {
    const track = this.tracks.get(groupId);
    // Full: groups beyond the first MAX_TRACKED_GROUPS are not followed (evicting one for another
    // would make every look at all groups start them all over), nor described.
    if (!track && this.tracks.size >= MAX_TRACKED_GROUPS) return false;
    const now = new Date(this.options.clock.now()).toISOString();
    const view = describeGroupHeader(this.options.broker, groupId);
    if (!view) {
      if (!track) return false;
      this.tracks.delete(groupId);
      track.lag.release();
      return true;
    }
    const generation = view.groupEpoch ?? view.generationId;
    const coordinator = this.options.coordinatorOf?.(groupId) ?? this.options.broker.nodeId;
    const members = new Map<string, MemberSig>(view.members.map((m) => [m.memberId, { clientId: m.clientId, subscription: subscriptionOf(m) }]));
    if (!track) {
      const created: Track = {
        type: view.type,
        state: view.state,
        generation,
        coordinator,
        members,
        pending: { joined: 0, left: 0, timedOut: 0, subscription: 0, coordinator: 0 },
        events: [{ at: now, kind: 'seen', state: view.state, generation, members: members.size, clientIds: boundedList([...members.values()].map((m) => m.clientId).sort()) }],
        commitEvents: [],
        offsetsVersion: Number.NaN,
        commits: new Map(),
        lastCommitBy: new Map(),
        lag: new GroupLag(this.lagBudget),
      };
      this.tracks.set(groupId, created);
      // A group created since start is first looked at after its first joins (looks are batched):
      // its generations up to now were rebalances too, as Kafka's rebalance count has them.
      if (this.started && generation > 0) {
        created.events.push({ at: now, kind: 'rebalance', generation, cause: 'join', members: members.size, detail: `${members.size} joined` });
        const key = `${view.type}\u0000join`;
        this.rebalances.set(key, (this.rebalances.get(key) ?? 0) + generation);
      }
      const offsets = this.readOffsets(created, groupId);
      this.trackCommits(created, view, offsets, activity, now);
      this.sampleLag(created, groupId, offsets, pass.moves);
      return true;
    }
    let changed = false;
    const push = (event: TimelineEvent): void => {
      track.events.push(event);
      if (track.events.length > MAX_EVENTS) track.events.shift();
      changed = true;
    };
    if (view.type !== track.type) {
      push({ at: now, kind: 'type', from: track.type, to: view.type });
      track.type = view.type;
    }
    if (coordinator !== track.coordinator) {
      push({ at: now, kind: 'coordinator', from: track.coordinator, to: coordinator });
      track.pending.coordinator++;
      track.coordinator = coordinator;
    }
    for (const [memberId, sig] of members) {
      const before = track.members.get(memberId);
      if (!before) {
        push({ at: now, kind: 'member-joined', memberId: cut(memberId), clientId: cut(sig.clientId) });
        track.pending.joined++;
      } else if (before.subscription !== sig.subscription) {
        track.pending.subscription++;
      }
    }
    for (const [memberId, sig] of track.members) {
      if (members.has(memberId)) continue;
      const cause = activity?.leaving.has(memberId) || this.leaveInFlight(groupId, memberId) ? 'leave' : 'session timeout';
      push({ at: now, kind: 'member-left', memberId: cut(memberId), clientId: cut(sig.clientId), cause });
      if (cause === 'leave') track.pending.left++;
      else track.pending.timedOut++;
    }
    track.members = members;
    if (view.state !== track.state) {
      // A classic group's states between the two looks, when they were not seen, are implied.
      const path = view.type === 'classic' && track.type === 'classic' ? classicStatePath(track.state, view.state) : [view.state];
      let from = track.state;
      for (let i = 0; i < path.length; i++) {
        const to = path[i]!;
        push(i === path.length - 1 ? { at: now, kind: 'state', from, to } : { at: now, kind: 'state', from, to, implied: true });
        from = to;
      }
      track.state = view.state;
    }
    // -1 is a group known only by its offsets (not yet materialised): its first generation is no rebalance.
    if (generation > track.generation && track.generation >= 0) {
      // The coordinator's own reason, when one rebalance happened since the last look (a classic
      // group's: the reason its log gives, with the clients' own).
      const reason = generation === track.generation + 1 && view.type === 'classic' ? (this.options.broker.classic.existingGroup(groupId)?.generationReason ?? null) : null;
      const cause = causeOf(track.pending, view.type, reason);
      push({ at: now, kind: 'rebalance', generation, cause, members: members.size, detail: [detailOf(track.pending), reason === null ? '' : cut(reason)].filter((d) => d !== '').join('; ') });
      const key = `${view.type}\u0000${cause}`;
      this.rebalances.set(key, (this.rebalances.get(key) ?? 0) + 1);
      track.pending = { joined: 0, left: 0, timedOut: 0, subscription: 0, coordinator: 0 };
    } else {
      // A move the group came through without a rebalance (a classic group's members follow the
      // coordinator, as on Kafka) names no later one: it was counted until the next rebalance, of
      // whatever cause (new-user trial, session 31: a leader's rejoin 30 s later was a "coordinator move").
      track.pending.coordinator = 0;
    }
    track.generation = generation;
    const offsets = this.readOffsets(track, groupId);
    if (this.trackCommits(track, view, offsets, activity, now)) changed = true;
    if (this.sampleLag(track, groupId, offsets, pass.moves)) changed = true;
    // Most recently changed last, so that the least recently changed are dropped first when there are too many.
    if (changed) {
      this.tracks.delete(groupId);
      this.tracks.set(groupId, track);
    }
    return changed;
  }

  /**
   * Whether a LeaveGroup or ConsumerGroupHeartbeat of `memberId` is still in flight: the member
   * is removed when the request is handled, its answer waits for the write of its records, so a
   * look in between (the periodic one) sees it gone before the request is done. Read from the
   * request log only for a member gone without a finished leave (rare).
   */
  private leaveInFlight(groupId: string, memberId: string): boolean {
    return this.options.faults.requests({ group: groupId }).some((e) => e.outcome === 'pending' && e.memberId === memberId && LEAVING_APIS.has(e.api));
  }

  /** The group's committed offsets when they changed since the track last read them, else null. */
  private readOffsets(track: Track, groupId: string): CommittedEntry[] | null {
    const version = this.options.broker.offsets.versionOf(groupId);
    if (version === track.offsetsVersion) return null;
    track.offsetsVersion = version;
    return this.options.broker.offsets.offsetsOf(groupId);
  }

  /**
   * Partitions whose commit changed get their committer: the member whose commit requests were
   * seen since the last look when there was one, else the partition's owner now. One timeline
   * entry per look with commits. `offsets` null: unchanged since the last look.
   */
  private trackCommits(track: Track, view: GroupHeader, offsets: CommittedEntry[] | null, activity: Activity | null, now: string): boolean {
    const moved: string[] = [];
    const sole = activity?.committers.size === 1 ? [...activity.committers][0]! : undefined;
    let ownerOf: ((topic: string, partition: number) => string | null) | null = null;
    let topic = '';
    let seen: Array<{ offset: bigint; at: bigint } | undefined> = [];
    for (const { topic: name, partition, offset } of offsets ?? []) {
      if (name !== topic) {
        topic = name;
        seen = track.commits.get(name) ?? [];
        if (!track.commits.has(name)) track.commits.set(name, seen);
      }
      const before = seen[partition];
      if (before && before.offset === offset.committedOffset && before.at === offset.commitTimestamp) continue;
      seen[partition] = { offset: offset.committedOffset, at: offset.commitTimestamp };
      const key = `${name}-${partition}`;
      ownerOf ??= partitionOwners(view.members);
      track.lastCommitBy.set(key, sole === undefined ? ownerOf(name, partition) : sole === '' ? null : sole);
      moved.push(`${key}@${offset.committedOffset}`);
    }
    if ((!activity || activity.commits === 0) && moved.length === 0) return false;
    // Offsets that moved with no OffsetCommit seen: a transaction's COMMIT marker made them committed.
    const memberId = activity && activity.commits > 0 ? activity.lastCommitMemberId : null;
    const event: TimelineEvent = activity && activity.commits > 0
      ? { at: now, kind: 'commit', requests: activity.commits, memberId: memberId === null ? null : cut(memberId), clientId: cut(activity.lastCommitClientId), partitions: boundedList(moved), error: activity.lastCommitError }
      : { at: now, kind: 'commit', requests: 0, memberId: null, clientId: '', partitions: boundedList(moved), error: null };
    track.commitEvents.push(event);
    if (track.commitEvents.length > MAX_COMMIT_EVENTS) track.commitEvents.shift();
    return true;
  }

  /** The group's lag sample (`GroupLag.sample`); whether its lags changed. */
  private sampleLag(track: Track, groupId: string, offsets: CommittedEntry[] | null, moves: TopicMoves): boolean {
    const { broker } = this.options;
    return track.lag.sample(broker, (this.options.wallClock ?? Date.now)(), offsets, () => broker.offsets.offsetsOf(groupId), moves);
  }
}

/** Adds the requests of `later` to `activity` (the same group's, seen after). */
function mergeActivity(activity: Activity, later: Activity): void {
  activity.commits += later.commits;
  if (later.commits > 0) {
    activity.lastCommitError = later.lastCommitError;
    activity.lastCommitMemberId = later.lastCommitMemberId;
    activity.lastCommitClientId = later.lastCommitClientId;
  }
  for (const id of later.committers) activity.committers.add(id);
  for (const id of later.leaving) activity.leaving.add(id);
}

/** `text` within MAX_EVENT_TEXT characters: cut, ending in an ellipsis, when longer. */
function cut(text: string): string {
  return text.length <= MAX_EVENT_TEXT ? text : `${text.slice(0, MAX_EVENT_TEXT - 1)}…`;
}

/** The first MAX_EVENT_LIST of `items` (each cut), then `+N more` when there are more. */
function boundedList(items: string[]): string[] {
  if (items.length <= MAX_EVENT_LIST) return items.map(cut);
  return [...items.slice(0, MAX_EVENT_LIST).map(cut), `+${items.length - MAX_EVENT_LIST} more`];
}

function subscriptionOf(m: GroupMemberView): string {
  return `${(m.subscribedTopicNames ?? []).join(',')}|${m.subscribedTopicRegex ?? ''}`;
}

/**
 * A classic group's rebalance reasons (src/coordinator/classic: Kafka's `prepareRebalance` reasons)
 * and the cause each names, for a rebalance whose members the looks did not see change (a member
 * seen already while it joined the next generation: new-user trial, session 31).
 */
const CLASSIC_REASON_CAUSES: ReadonlyArray<[RegExp, RebalanceCause]> = [
  [/^adding new member /, 'join'],
  [/ on heartbeat expiration/, 'session timeout'],
  [/^explicit LeaveGroup request /, 'leave'],
  [/ changed metadata during Stable| changed the group's protocol|^updating metadata for static member /, 'subscription change'],
];

function causeOf(pending: Track['pending'], type: string, reason: string | null): RebalanceCause {
  if (pending.coordinator > 0) return 'coordinator move';
  if (pending.joined > 0) return 'join';
  if (pending.timedOut > 0) return 'session timeout';
  if (pending.left > 0) return 'leave';
  if (pending.subscription > 0) return 'subscription change';
  const named = reason === null ? undefined : CLASSIC_REASON_CAUSES.find(([pattern]) => pattern.test(reason));
  if (named !== undefined) return named[1];
  // A classic group bumps its generation when members rejoin; consumer and share groups bump their
  // epoch on metadata (regex resolution, partitions added, share partitions initialized).
  return type === 'classic' ? 'rejoin' : 'metadata change';
}

function detailOf(pending: Track['pending']): string {
  const parts: string[] = [];
  if (pending.joined) parts.push(`${pending.joined} joined`);
  if (pending.left) parts.push(`${pending.left} left`);
  if (pending.timedOut) parts.push(`${pending.timedOut} timed out`);
  if (pending.subscription) parts.push(`${pending.subscription} changed subscription`);
  if (pending.coordinator) parts.push('coordinator moved');
  return parts.join(', ');
}
