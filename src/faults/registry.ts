import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import { CALLS_BACK, NO_RESPONSE, brokerIdOf, type ApiDefinition, type PartitionTarget, type RequestContext, type RequestDone } from '../apis/types.js';
import { API_NAMES } from '../protocol/messages/index.js';
import type { FaultRuleLimits } from './reachable.js';
import { normalizeRule, knownErrorName, FaultRuleError, MAX_FAULT_RULES, MAX_TIMER_MS, type FaultRuleSpec, type NormalizedAction, type NormalizedMatch, type NormalizedRule } from './types.js';
import { principalString } from '../security/principal.js';
import { fillLoggedGroups, fillLoggedTopics, firstNamed, requestInfo, requestNames, type RequestInfo } from './request-info.js';
import { targetsAnyPartition } from './error-response.js';
import { anyNameMatches, nameMatches } from './name-match.js';
import { groupListOf } from '../apis/shapes/group-list.js';
import { faultActionDefinition, type ConnectionIO, type FaultActionDefinition } from './actions/index.js';
import { RequestLog, type RequestLogEntry, type RequestLogFilter } from './request-log.js';
import { RequestOutcome } from './request-outcome.js';
import { wallNow } from '../util/time.js';

/** The principal of a request without authentication, as Kafka's `KafkaPrincipal.ANONYMOUS` prints. */
const ANONYMOUS = 'User:ANONYMOUS';

/** A rule as the control surfaces report it. */
export interface FaultRuleInfo {
  id: string;
  description?: string;
  match: NormalizedMatch;
  action: NormalizedAction;
  times: number | 'unlimited';
  durationMs?: number;
  /** Times the rule fired. */
  fired: number;
  /** Requests that matched (including those before `nth` and those another rule answered). */
  matched: number;
  /** Firings left, or `unlimited`. 0 once exhausted. */
  remaining: number | 'unlimited';
  /** `active`, `exhausted` (fired `times` times), `expired` (past `durationMs`) or `removed`. */
  state: 'active' | 'exhausted' | 'expired' | 'removed';
  createdAt: string;
  expiresAt: string | null;
}

export interface WaitFiredOptions {
  /** Reject after this long (default 30000 ms). */
  timeoutMs?: number;
  /** Stops waiting (rejects with the signal's reason): the HTTP API's wait when its client goes away. */
  signal?: AbortSignal;
}

/** What `faults.add` returns: live view of one rule. */
export interface FaultHandle {
  readonly id: string;
  /** Times the rule has fired so far. */
  readonly fired: number;
  /** Whether the rule can still fire. */
  readonly active: boolean;
  info(): FaultRuleInfo;
  /**
   * Resolves once the rule has fired `n` times in total; rejects after `timeoutMs`, or as soon as
   * the rule can no longer get there (removed, exhausted or expired first; `FaultRuleGone`).
   */
  waitFired(n: number, options?: WaitFiredOptions): Promise<FaultRuleInfo>;
  /** Removes the rule; false if it was already removed. */
  remove(): boolean;
}

/**
 * Thrown by `waitFired` when the rule can no longer fire the count waited for: removed, fired its
 * `times` (exhausted) or past its `durationMs` (expired) first (HTTP: 410).
 */
export class FaultRuleGone extends Error {
  override readonly name = 'FaultRuleGone';
}

/** Thrown by `waitFired` when the count is not reached in time (HTTP: 408). */
export class FaultWaitTimeout extends Error {
  override readonly name = 'FaultWaitTimeout';
}

export type { ConnectionIO } from './actions/index.js';

interface Waiter {
  n: number;
  resolve: (info: FaultRuleInfo) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
  /** Ends the wait if the rule expires first. */
  expiry: NodeJS.Timeout | undefined;
  /** Removes the `signal` listener. */
  unlisten: () => void;
}

function noop(): void {}

/** Why `rule` can never have fired `n` times, or null while it still can. */
function unreachable(rule: Rule, n: number): string | null {
  const state = rule.state();
  if (state === 'removed') return `fault rule ${rule.id} was removed`;
  if (rule.spec.times !== null && rule.spec.times < n) return `fault rule ${rule.id} fires at most ${rule.spec.times} time${rule.spec.times === 1 ? '' : 's'}, not ${n}`;
  if (state === 'expired') return `fault rule ${rule.id} expired after firing ${rule.fired} of ${n} times`;
  return null;
}

/** Ends `waiter`'s wait on `rule`: resolved with the rule's info when `err` is null, else rejected. */
function endWait(rule: Rule, waiter: Waiter, err: Error | null): void {
  if (!rule.waiters.delete(waiter)) return;
  clearTimeout(waiter.timer);
  clearTimeout(waiter.expiry);
  waiter.unlisten();
  if (err === null) waiter.resolve(rule.info());
  else waiter.reject(err);
}

class Rule {
  fired = 0;
  matched = 0;
  removed = false;
  readonly createdAt = Date.now();
  readonly expiresAt: number | null;
  /** The definition of the rule's action (its effect, its error codes). */
  readonly definition: FaultActionDefinition<{ type: string }, NormalizedAction>;
  readonly waiters = new Set<Waiter>();
  /** Resolves when the rule is removed: connections it left hanging are closed then. */
  readonly gone: Promise<void>;
  markGone: () => void = () => {};

  constructor(readonly id: string, readonly spec: NormalizedRule) {
    this.expiresAt = spec.durationMs === undefined ? null : this.createdAt + spec.durationMs;
    this.gone = new Promise((resolve) => (this.markGone = resolve));
    this.definition = faultActionDefinition(spec.action.type)!;
  }

  state(now = Date.now()): FaultRuleInfo['state'] {
    if (this.removed) return 'removed';
    if (this.spec.times !== null && this.fired >= this.spec.times) return 'exhausted';
    if (this.expiresAt !== null && now >= this.expiresAt) return 'expired';
    return 'active';
  }

  info(): FaultRuleInfo {
    const { spec } = this;
    const state = this.state();
    const out: FaultRuleInfo = {
      id: this.id,
      match: spec.match,
      action: spec.action,
      times: spec.times ?? 'unlimited',
      fired: this.fired,
      matched: this.matched,
      remaining: state !== 'active' ? 0 : spec.times === null ? 'unlimited' : spec.times - this.fired,
      state,
      createdAt: new Date(this.createdAt).toISOString(),
      expiresAt: this.expiresAt === null ? null : new Date(this.expiresAt).toISOString(),
    };
    if (spec.description !== undefined) out.description = spec.description;
    if (spec.durationMs !== undefined) out.durationMs = spec.durationMs;
    return out;
  }

  /** The groups an error of this rule targets on a request naming several answered apart, or null (faults/error-response.ts). */
  groupTarget(api: ApiDefinition, version: number): ((groupId: string) => boolean) | null {
    const { group } = this.spec.match;
    if (group === undefined || this.definition.errorCode === undefined || groupListOf(api, version) === null) return null;
    return (groupId) => nameMatches(group, groupId);
  }

  /** The partitions an error of this rule targets, or null when it fails the whole request (or does not answer an error). */
  partitionTarget(api: ApiDefinition): PartitionTarget | null {
    const { topic, partitions } = this.spec.match;
    if (api.partitions === undefined || (topic === undefined && partitions === undefined) || this.definition.errorCode === undefined) return null;
    return (t, p) => (topic === undefined || nameMatches(topic, t)) && (partitions === undefined || partitions.includes(p));
  }

  matches(apiKey: number, ctx: RequestContext, info: RequestInfo): boolean {
    const m = this.spec.match;
    if (m.apiKey !== undefined && m.apiKey !== apiKey) return false;
    if (m.minVersion !== undefined && ctx.apiVersion < m.minVersion) return false;
    if (m.maxVersion !== undefined && ctx.apiVersion > m.maxVersion) return false;
    if (m.clientId !== undefined && !nameMatches(m.clientId, ctx.clientId)) return false;
    if (m.brokerId !== undefined && brokerIdOf(ctx) !== m.brokerId) return false;
    if (m.group !== undefined && !anyNameMatches(m.group, info.groups)) return false;
    if (m.memberId !== undefined && !anyNameMatches(m.memberId, info.memberIds)) return false;
    if (m.transactionalId !== undefined && !anyNameMatches(m.transactionalId, info.transactionalIds)) return false;
    if (m.topic === undefined && m.partitions === undefined) return true;
    // The partitions of the topics the rule names (of every topic named, without a topic).
    const { topic, partitions } = m;
    for (const [name, named] of info.topics) {
      if (topic !== undefined && !nameMatches(topic, name)) continue;
      if (partitions === undefined || named?.some((p) => partitions.includes(p))) return true;
    }
    return false;
  }
}

/**
 * The fault rules of one server and its request log: one model behind the programmatic API
 * (`server.faults`), the HTTP admin API, the CLI and the startup file. The connection calls
 * `dispatch` for every decoded request; a matching rule answers instead of (or around) the
 * handler. Rules are tried in the order they were added; the first that fires wins.
 */
export class FaultRegistry {
  private readonly rules = new Map<string, Rule>();
  private readonly requestLog: RequestLog;
  /** Called once per request when its outcome is known (metrics, the console's live view). */
  private readonly doneListeners = new Set<(entry: Readonly<RequestLogEntry>) => void>();
  private nextId = 0;

  /** The server's versions and broker ids: a rule outside them could never fire and is refused. */
  private readonly limits: FaultRuleLimits | undefined;

  constructor(private readonly log: Logger, options: { requestLogSize?: number; limits?: FaultRuleLimits } = {}) {
    this.requestLog = new RequestLog(options.requestLogSize ?? 1000);
    this.limits = options.limits;
  }

  /**
   * Adds a rule and returns its handle:
   * ```ts
   * const rule = server.faults.add({ match: { api: 'OffsetCommit', group: 'g1' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' }, times: 3 });
   * await rule.waitFired(3, { timeoutMs: 10_000 });
   * ```
   * Throws FaultRuleError for an invalid rule or a duplicate id.
   */
  add(spec: FaultRuleSpec): FaultHandle {
    const rule = this.addRule(normalizeRule(spec, this.limits));
    return this.handleOf(rule);
  }

  /** Adds several rules atomically (all validated first), e.g. from a startup file. */
  addAll(specs: readonly unknown[]): FaultHandle[] {
    const normalized = specs.map((s, i) => {
      try {
        return normalizeRule(s, this.limits);
      } catch (err) {
        throw new FaultRuleError(`rule ${i + 1} of ${specs.length}: ${(err as Error).message}`);
      }
    });
    this.checkRoom(normalized.length);
    const ids = new Set<string>();
    for (const r of normalized) {
      if (r.id === undefined) continue;
      if (ids.has(r.id) || this.rules.has(r.id)) throw new FaultRuleError(`duplicate rule id "${r.id}"`);
      ids.add(r.id);
    }
    return normalized.map((r) => this.handleOf(this.addRule(r)));
  }

  /** The handle of a rule by id. */
  get(id: string): FaultHandle | undefined {
    const rule = this.rules.get(id);
    return rule ? this.handleOf(rule) : undefined;
  }

  /** Every rule not removed, in the order added (exhausted and expired ones included). */
  list(): FaultRuleInfo[] {
    return [...this.rules.values()].map((r) => r.info());
  }

  /** Removes a rule; false if there is none with this id. Pending `waitFired` calls reject. */
  remove(id: string): boolean {
    const rule = this.rules.get(id);
    if (!rule) return false;
    this.rules.delete(id);
    rule.removed = true;
    rule.markGone();
    for (const w of [...rule.waiters]) endWait(rule, w, new FaultRuleGone(`fault rule ${id} was removed before it fired ${w.n} times (fired ${rule.fired})`));
    this.log.info({ faultRule: id }, 'fault rule removed');
    return true;
  }

  /** Removes every rule; returns how many there were. */
  clear(): number {
    const ids = [...this.rules.keys()];
    for (const id of ids) this.remove(id);
    return ids.length;
  }

  /** Waits until rule `id` has fired `n` times. */
  waitFired(id: string, n: number, options: WaitFiredOptions = {}): Promise<FaultRuleInfo> {
    const rule = this.rules.get(id);
    if (!rule) return Promise.reject(new FaultRuleError(`no fault rule "${id}"`));
    return this.waitOn(rule, n, options);
  }

  /**
   * Recent requests, oldest first (the newest 1000 are kept, and the last 1000 failed ones beyond
   * them for `failed` and `error`); `error` is a Kafka error name in any case or a code
   * (FaultRuleError naming a close one when no Kafka error has it).
   */
  requests(filter: RequestLogFilter = {}): RequestLogEntry[] {
    return this.requestLog.list(filter.error === undefined ? filter : { ...filter, error: knownErrorName(filter.error) });
  }

  clearRequests(): void {
    this.requestLog.clear();
  }

  /**
   * Calls `listener` with each request's log entry once its outcome is set (answered, closed,
   * failed, or no response). The listener runs on the request path: it must be cheap and must not
   * throw; the log reuses the entry for a later request, so it copies what it keeps (not the entry
   * or its arrays). Returns the function that removes it.
   */
  onRequestDone(listener: (entry: Readonly<RequestLogEntry>) => void): () => void {
    this.doneListeners.add(listener);
    return () => this.doneListeners.delete(listener);
  }

  /**
   * Called by the connection for each decoded request: handles it, applying the first rule that
   * fires. Returns null when done at once, else a promise while the request is in flight; or, with
   * `whenDone`, `CALLS_BACK` when the handler's answer is awaited: `whenDone` is then called
   * from the reaction that sends the answer (one promise less per request).
   */
  dispatch(api: ApiDefinition, body: unknown, ctx: RequestContext, io: ConnectionIO, whenDone?: RequestDone): Promise<void> | null | typeof CALLS_BACK {
    const names = requestNames(api, ctx.apiVersion, body);
    const started = wallNow();
    const entry = this.requestLog.add(started);
    entry.api = api.name;
    entry.apiKey = api.apiKey;
    entry.version = ctx.apiVersion;
    entry.correlationId = ctx.correlationId;
    entry.clientId = ctx.clientId;
    entry.connectionId = ctx.connectionId;
    entry.brokerId = brokerIdOf(ctx);
    entry.principal = ctx.principal ? principalString(ctx.principal) : ANONYMOUS;
    // What the log keeps of the names, straight into the entry's own arrays (no object of them per request).
    fillLoggedGroups(entry.groups, names.groups);
    entry.memberId = firstNamed(names.members);
    entry.transactionalId = firstNamed(names.transactionalIds);
    fillLoggedTopics(entry.topics, names, ctx.broker);
    const outcome = new RequestOutcome(this.requestLog, entry, io, started, this.doneListeners, api.errorCodes);

    // Partitions and the full names only when a rule may look at them.
    const info = this.rules.size === 0 ? null : requestInfo(api, ctx.apiVersion, body, ctx.broker, names);
    const hit = info === null ? null : this.pick(api, ctx, info, body);
    if (!hit) {
      let result;
      entry.handled = true;
      try {
        result = api.handle(body, ctx);
      } catch (err) {
        outcome.failed(err);
      }
      if (!(result instanceof Promise)) return outcome.answer(result);
      if (whenDone === undefined) return result.then((r) => outcome.answer(r) ?? undefined, (err: unknown) => outcome.failed(err));
      result.then(
        (r) => outcome.answerThen(r, whenDone),
        (err: unknown) => outcome.failedThen(err, whenDone),
      );
      return CALLS_BACK;
    }
    const { rule, index } = hit;
    entry.addFault(rule.id);
    const action = rule.spec.action;
    const errorCode = rule.definition.errorCode?.(action, index);
    this.log.info(
      { faultRule: rule.id, fired: rule.fired, api: api.name, version: ctx.apiVersion, clientId: ctx.clientId, groups: entry.groups, action: action.type, ...(errorCode !== undefined ? { errorCode } : {}) },
      `fault ${rule.id} fired on ${api.name}`,
    );
    this.notify(rule);
    return rule.definition
      .fire(action, {
        api, body, ctx, io, index,
        respond: (response) => outcome.respondWith(response, true),
        finish: (o, response) => outcome.finish(o, response),
        partitions: rule.partitionTarget(api),
        groups: rule.groupTarget(api, ctx.apiVersion),
        ruleGone: rule.gone,
        ruleExpiresAt: rule.expiresAt,
        handle: async (b) => {
          entry.handled = true;
          return api.handle(b, ctx);
        },
      })
      .catch((err: unknown) => outcome.failed(err));
  }

  private pick(api: ApiDefinition, ctx: RequestContext, info: RequestInfo, body: unknown): { rule: Rule; index: number } | null {
    const now = Date.now();
    let chosen: Rule | null = null;
    for (const rule of this.rules.values()) {
      if (rule.state(now) !== 'active' || !rule.matches(api.apiKey, ctx, info)) continue;
      const target = rule.partitionTarget(api);
      // With a group too, the partitions of the groups it names (the rest of a batch is not its).
      const groups = target ? rule.groupTarget(api, ctx.apiVersion) : null;
      const scope = groups ? groupListOf(api, ctx.apiVersion)!.only(body, groups) : body;
      if (target && !targetsAnyPartition(api, ctx.apiVersion, scope, target, ctx.broker)) continue;
      rule.matched++;
      if (chosen === null && rule.matched >= rule.spec.match.nth) chosen = rule;
    }
    if (!chosen) return null;
    chosen.fired++;
    return { rule: chosen, index: chosen.fired - 1 };
  }

  /** Refuses rules beyond MAX_FAULT_RULES before any is added. */
  private checkRoom(adding: number): void {
    if (this.rules.size + adding > MAX_FAULT_RULES) {
      throw new FaultRuleError(`at most ${MAX_FAULT_RULES} fault rules at once (${this.rules.size} held): remove some first`);
    }
  }

  private addRule(spec: NormalizedRule): Rule {
    this.checkRoom(1);
    let id = spec.id;
    if (id === undefined) {
      do id = `f${++this.nextId}`;
      while (this.rules.has(id));
    } else if (this.rules.has(id)) {
      throw new FaultRuleError(`duplicate rule id "${id}"`);
    }
    const rule = new Rule(id, spec);
    this.rules.set(id, rule);
    this.log.info({ faultRule: id, match: spec.match, action: spec.action, times: spec.times ?? 'unlimited', durationMs: spec.durationMs }, `fault rule ${id} added`);
    return rule;
  }

  private notify(rule: Rule): void {
    for (const w of [...rule.waiters]) {
      // (A count beyond the rule's `times` was refused when the wait began: `unreachable`.)
      if (rule.fired >= w.n) endWait(rule, w, null);
    }
  }

  private waitOn(rule: Rule, n: number, options: WaitFiredOptions): Promise<FaultRuleInfo> {
    if (!Number.isInteger(n) || n < 0) return Promise.reject(new FaultRuleError(`waitFired expects a count >= 0, got ${n}`));
    if (rule.fired >= n) return Promise.resolve(rule.info());
    const gone = unreachable(rule, n);
    if (gone !== null) return Promise.reject(new FaultRuleGone(gone));
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (Number.isNaN(timeoutMs) || timeoutMs < 0) return Promise.reject(new FaultRuleError(`waitFired expects a timeoutMs >= 0, got ${timeoutMs}`));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { n, resolve, reject, timer: undefined, expiry: undefined, unlisten: noop };
      // Beyond what a Node.js timer can hold (Infinity included): wait without a deadline.
      if (timeoutMs <= MAX_TIMER_MS) {
        waiter.timer = setTimeout(() => endWait(rule, waiter, new FaultWaitTimeout(`fault rule ${rule.id} fired ${rule.fired} of ${n} times within ${timeoutMs} ms`)), timeoutMs);
      }
      // A rule expiring first ends the wait then (a Node timer holds MAX_TIMER_MS at most: one
      // expiring later than that is past any timeout that fits in one, and beyond it the wait is
      // without a deadline anyway).
      const untilExpiry = rule.expiresAt === null ? Infinity : Math.max(0, rule.expiresAt - Date.now());
      if (untilExpiry < timeoutMs && untilExpiry <= MAX_TIMER_MS) {
        waiter.expiry = setTimeout(() => endWait(rule, waiter, new FaultRuleGone(`fault rule ${rule.id} expired after firing ${rule.fired} of ${n} times`)), untilExpiry);
      }
      if (signal) {
        const aborted = (): void => endWait(rule, waiter, signal.reason);
        signal.addEventListener('abort', aborted, { once: true });
        waiter.unlisten = () => signal.removeEventListener('abort', aborted);
      }
      rule.waiters.add(waiter);
    });
  }

  private handleOf(rule: Rule): FaultHandle {
    return {
      id: rule.id,
      get fired() {
        return rule.fired;
      },
      get active() {
        return rule.state() === 'active';
      },
      info: () => rule.info(),
      waitFired: (n, options = {}) => this.waitOn(rule, n, options),
      remove: () => (rule.removed ? false : this.remove(rule.id)),
    };
  }
}

/** Known API names, for documentation and the CLI. */
export const KNOWN_APIS: readonly string[] = Object.values(API_NAMES);
