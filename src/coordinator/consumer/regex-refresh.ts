/**
 * KIP-848 regular expression subscriptions, resolved off the heartbeat as Kafka 4.3's
 * `GroupMetadataManager` does:
 *
 * - `maybeUpdateRegularExpressions` runs in every heartbeat (and classic JoinGroup) of a consumer
 *   group: a changed regex is validated, a regex nobody uses any more is tombstoned (record 16),
 *   and the returned `UpdateRegularExpressionStatus` tells the caller whether the group epoch bumps
 *   (only REGEX_UPDATED_AND_RESOLVED does: the member took a regex already resolved, or dropped
 *   its regex). A new regex is not resolved there: the method schedules a job, at most one per
 *   group at a time and not within `REGEX_BATCH_REFRESH_MIN_INTERVAL_MS` (10 s) of the group's last
 *   resolution, when a regex is unresolved, a topic was created since the last resolution, or
 *   `group.consumer.regex.refresh.interval.ms` passed.
 * - The job (`CoordinatorExecutor` task + `handleRegularExpressionsResult`) resolves every regex
 *   of the group against all topics, leaving out, with an authorizer, those the principal of the
 *   heartbeat that scheduled it may not DESCRIBE (`filterTopicDescribeAuthorizedTopics`: from every
 *   regex of the group, internal topics included), writes record 16 for each
 *   regex still subscribed (version = the metadata version it saw, timestamp = now) and bumps the
 *   group epoch (record 3) when a resolution or the metadata hash changed. The next heartbeat then
 *   computes the new target assignment.
 *
 * Our "metadata image version" (`CoordinatorMetadataImage.version()`, the KRaft metadata offset in
 * Kafka) is a counter of ours: it moves when a topic is created, and at load it starts above every
 * version found in the replayed records 16, as Kafka's image at load is newer than any image a
 * logged resolution saw (so after a restart the regexes are re-resolved once the 10 s since their
 * last resolution have passed, as after a Kafka coordinator failover).
 */
import { KeyedTimers, groupTimerKey } from '../classic/keyed-timers.js';
import type { CoordinatorRecord } from '../records.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerContext, ConsumerRequestContext, Emit, RegexSubscriptions } from './context.js';
import { AclOperation } from '../../security/acl/acl-types.js';
import { RegexUpdateStatus } from './regex-status.js';
import type { ConsumerGroupMember } from './member.js';
import { resolveRegex, throwIfRegularExpressionIsInvalid } from './regex.js';
import { subscriptionMetadataHash } from './subscriptions.js';

/** The topics `client`'s principal may DESCRIBE (Kafka's `filterTopicDescribeAuthorizedTopics`); null without an authorizer. */
function describableBy(client: ConsumerRequestContext | undefined): ((topic: string) => boolean) | null {
  const authorize = client?.authorizeTopic;
  return authorize === undefined ? null : (topic) => authorize(AclOperation.DESCRIBE, topic);
}

/** `GroupMetadataManager.REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`: a group's regexes are resolved at most this often. */
export const REGEX_BATCH_REFRESH_MIN_INTERVAL_MS = 10_000;


/** The longest string a non-flexible record field (int16 length) holds. */
const MAX_KEY_STRING_BYTES = 0x7fff;

// The executor task key, `groupId + "-regex"` in Kafka; ours follows the timers' prefix scheme.
const jobKey = (groupId: string) => groupTimerKey(groupId, 'cg-regex');

export class RegexRefresher implements RegexSubscriptions {
  private readonly jobs: KeyedTimers;
  /** Our `CoordinatorMetadataImage.version()`: moves when a topic is created (and at load). */
  private metadataVersion = 1n;
  /** `lastMetadataImageWithNewTopics`: the version at load, then at each topic creation. */
  private lastMetadataVersionWithNewTopics = 1n;

  constructor(private readonly ctx: ConsumerContext) {
    this.jobs = new KeyedTimers(ctx.time);
  }

  /** The metadata version a resolution now would record. */
  get currentMetadataVersion(): bigint {
    return this.metadataVersion;
  }

  /**
   * After the log is replayed (`GroupCoordinatorShard.onLoaded` calls `onMetadataUpdate` with the
   * current image, which sets `lastMetadataImageWithNewTopics`): the version starts above every
   * replayed record 16's.
   */
  onLoaded(maxReplayedVersion: bigint): void {
    if (maxReplayedVersion >= this.metadataVersion) this.metadataVersion = maxReplayedVersion + 1n;
    this.lastMetadataVersionWithNewTopics = this.metadataVersion;
  }

  /** `onMetadataUpdate` with created topics: a new image version with new topics. */
  onTopicCreated(): void {
    this.metadataVersion += 1n;
    this.lastMetadataVersionWithNewTopics = this.metadataVersion;
  }

  /** `CoordinatorExecutor.isScheduled(groupId + "-regex")`. */
  isScheduled(groupId: string): boolean {
    return this.jobs.has(jobKey(groupId));
  }

  cancelAll(): void {
    this.jobs.cancelAll();
  }

  /**
   * `maybeUpdateRegularExpressions(context, group, member, updatedMember, records)`. Called once
   * the member's record 5 is applied: `member` is the member as it was (a new member's regex is
   * empty), `updated` as it is now. Everything is read as it was before this heartbeat's records
   * 16, as Kafka reads the group before its records are replayed.
   */
  maybeUpdateRegularExpressions(group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember, emit: Emit, client?: ConsumerRequestContext): RegexUpdateStatus {
    const now = this.ctx.time.now();
    const { groupId } = group;
    const oldRegex = member.subscribedTopicRegex;
    const newRegex = updated.subscribedTopicRegex;
    const subscribed = subscribedRegexesBefore(group, member);
    let requireRefresh = false;
    let status: RegexUpdateStatus = RegexUpdateStatus.NO_CHANGE;
    let tombstone: string | null = null;

    if (oldRegex !== newRegex) {
      this.ctx.log.debug({ groupId, memberId: updated.memberId, regex: newRegex }, 'member updated its subscribed regex');
      status = RegexUpdateStatus.REGEX_UPDATED;
      // The old regex loses its last subscriber: its resolution goes.
      if (oldRegex !== '' && subscribed.get(oldRegex) === 1) tombstone = oldRegex;
      if (newRegex !== '') {
        if ((subscribed.get(newRegex) ?? 0) === 0) {
          // A regex new to the group, resolved by a refresh. Kafka validates it here; the heartbeat
          // did so with `throwIfNewSubscribedTopicRegexIsInvalid` before it changed anything.
          requireRefresh = true;
        } else if (group.resolvedRegexes.has(newRegex)) {
          status = RegexUpdateStatus.REGEX_UPDATED_AND_RESOLVED;
        }
      } else if (oldRegex !== '') {
        status = RegexUpdateStatus.REGEX_UPDATED_AND_RESOLVED;
      }
    }

    // `lastResolvedRegularExpressionRefreshTimeMs` / `Version` and `numResolvedRegularExpressions`
    // of the group before this heartbeat (Kafka replays the tombstone after the handler returns).
    const lastRefreshTimeMs = lastResolvedRefreshTimeMs(group);
    const lastVersion = lastResolvedVersion(group);
    const numResolved = group.resolvedRegexes.size;
    if (tombstone !== null) emit({ kind: 'cg-regex', groupId, regex: tombstone, value: null });

    if (!requireRefresh && subscribed.size === 0) return status;
    // One refresh at a time per group, and none within 10 s of the last one, even for a new regex.
    if (this.isScheduled(groupId)) return status;
    if (now <= lastRefreshTimeMs + REGEX_BATCH_REFRESH_MIN_INTERVAL_MS) return status;

    const regexes = new Map(subscribed);
    if (oldRegex !== '') decrement(regexes, oldRegex);
    if (newRegex !== '') regexes.set(newRegex, (regexes.get(newRegex) ?? 0) + 1);
    requireRefresh ||= regexes.size !== numResolved;
    requireRefresh ||= lastVersion < this.lastMetadataVersionWithNewTopics;
    requireRefresh ||= now > lastRefreshTimeMs + this.ctx.settings.regexRefreshIntervalMs;
    if (requireRefresh && regexes.size > 0) this.schedule(groupId, updated.memberId, [...regexes.keys()], describableBy(client));
    return status;
  }

  /**
   * `CoordinatorExecutor.schedule`: the resolution runs off the request, on a timer of the injected
   * clock due at once (a manual or fake clock runs it on its next turn / `advance(0)`).
   */
  private schedule(groupId: string, memberId: string, regexes: string[], describable: ((topic: string) => boolean) | null): void {
    this.ctx.log.debug({ groupId, memberId, regexes }, 'scheduled the resolution of the group regexes');
    this.jobs.schedule(jobKey(groupId), 0, () => {
      const records = this.resolve(groupId, regexes, describable);
      if (records.length > 0) this.ctx.writer.appendLogged(records, 'consumer group regex resolution');
    });
  }

  /**
   * `TopicRegexResolver.resolveRegularExpressions` then `handleRegularExpressionsResult`: record 16
   * for every regex still subscribed, and record 3 when a resolution or the metadata hash changed.
   * Applies and returns the records; none when the group no longer exists. `describable`: the
   * topics the scheduling member's principal may DESCRIBE (null: no authorizer, every topic).
   */
  private resolve(groupId: string, regexes: readonly string[], describable: ((topic: string) => boolean) | null): CoordinatorRecord[] {
    const now = this.ctx.time.now();
    const version = this.metadataVersion;
    const names = this.ctx.topics.list().map((t) => t.name);
    // Filtering the topics before matching leaves the same sets as Kafka's filter after it.
    const topicNames = describable === null ? names : names.filter(describable);
    const resolved = new Map<string, string[]>();
    for (const regex of regexes) {
      try {
        resolved.set(regex, resolveRegex(regex, topicNames));
      } catch (err) {
        this.ctx.log.error({ groupId, regex, err }, 'could not parse the regular expression; ignoring it');
      }
    }
    this.ctx.log.info(
      { groupId, topicsConsidered: topicNames.length, matched: Object.fromEntries([...resolved].map(([regex, topics]) => [regex, topics.length])) },
      'refreshed the group regular expressions',
    );

    const group = this.ctx.store.get(groupId);
    if (!group) {
      this.ctx.log.debug({ groupId }, 'received the regular expressions of a group that no longer exists');
      return [];
    }
    // Record 16's key holds the regex as a non-flexible string (int16 length): a longer regex
    // cannot be written, so Kafka's write of this batch fails and is rolled back. We check before
    // applying anything, as we cannot roll back.
    const unwritable = [...resolved.keys()].find((regex) => group.numSubscribedMembers(regex) > 0 && Buffer.byteLength(regex, 'utf8') > MAX_KEY_STRING_BYTES);
    if (unwritable !== undefined) {
      this.ctx.log.error({ groupId, regexLength: unwritable.length }, 'a regular expression is too long for its record key; the resolution is not written');
      return [];
    }
    const records: CoordinatorRecord[] = [];
    const emit = this.ctx.store.emitInto(records);
    let bumpGroupEpoch = false;
    for (const [regex, topics] of [...resolved].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (group.numSubscribedMembers(regex) === 0) continue;
      const previous = group.resolvedRegexes.get(regex)?.topics ?? [];
      if (!sameTopics(previous, topics)) bumpGroupEpoch = true;
      emit({ kind: 'cg-regex', groupId, regex, value: { topics, version, timestamp: BigInt(now) } });
    }
    const metadataHash = subscriptionMetadataHash(this.ctx, group);
    if (metadataHash !== group.metadataHash) bumpGroupEpoch = true;
    if (bumpGroupEpoch) {
      const groupEpoch = group.groupEpoch + 1;
      emit({ kind: 'cg-metadata', groupId, value: { epoch: groupEpoch, metadataHash } });
      group.metadataExpired = false;
      this.ctx.log.info({ groupId, groupEpoch }, 'bumped consumer group epoch');
    }
    return records;
  }
}

/**
 * The validation step of `maybeUpdateRegularExpressions`, run on its own before the heartbeat
 * builds its first record (we cannot roll records back as Kafka's timeline does): when the member
 * changes its regex to one no member of the group subscribes to yet
 * (`numSubscribedMembers(newRegex) == 0`), `Utils.throwIfRegularExpressionIsInvalid`. A regex
 * another member already subscribes to was validated when it joined, and is not compiled again.
 * `member` is the member as it was (a new member's regex is empty), `newRegex` the one it takes.
 */
export function throwIfNewSubscribedTopicRegexIsInvalid(group: ConsumerGroup, member: ConsumerGroupMember, newRegex: string): void {
  if (newRegex === '' || newRegex === member.subscribedTopicRegex) return;
  if ((subscribedRegexesBefore(group, member).get(newRegex) ?? 0) === 0) throwIfRegularExpressionIsInvalid(newRegex);
}

/** `ConsumerGroup.subscribedRegularExpressions()` before the heartbeat: `member` counts with its old regex. */
function subscribedRegexesBefore(group: ConsumerGroup, member: ConsumerGroupMember): ReadonlyMap<string, number> {
  const counts = group.subscribedRegularExpressions;
  const now = group.members.get(member.memberId)?.subscribedTopicRegex;
  if (now === undefined || now === member.subscribedTopicRegex) return counts;
  const before = new Map(counts);
  if (now !== '') decrement(before, now);
  if (member.subscribedTopicRegex !== '') before.set(member.subscribedTopicRegex, (before.get(member.subscribedTopicRegex) ?? 0) + 1);
  return before;
}

/**
 * `ConsumerGroup.lastResolvedRegularExpressionRefreshTimeMs()`: the timestamp of the first resolved
 * regex (they are resolved together, so they share it), Long.MIN_VALUE when there is none.
 */
function lastResolvedRefreshTimeMs(group: ConsumerGroup): number {
  for (const r of group.resolvedRegexes.values()) return Number(r.timestamp);
  return Number.NEGATIVE_INFINITY;
}

/** `ConsumerGroup.lastResolvedRegularExpressionVersion()`: the first resolved regex's version, 0 when none. */
function lastResolvedVersion(group: ConsumerGroup): bigint {
  for (const r of group.resolvedRegexes.values()) return r.version;
  return 0n;
}

/** `Utils.decValue`: the count drops by one, the entry goes at zero. */
function decrement(counts: Map<string, number>, key: string): void {
  const n = counts.get(key);
  if (n === undefined) return;
  if (n <= 1) counts.delete(key);
  else counts.set(key, n - 1);
}

function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((t) => set.has(t));
}
