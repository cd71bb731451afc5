/**
 * What a fault action is: one definition per action type (src/faults/actions/<type>.ts), listed in
 * `FAULT_ACTIONS` (./index.ts). The rule parser, the registry, the OpenAPI document and the
 * `faults add` command read everything about an action from its definition.
 */
import type { ApiDefinition, PartitionTarget, RequestContext } from '../../apis/types.js';
import type { RequestLogEntry } from '../request-log.js';
import { MAX_FAULT_HOLD_MS, int } from '../validate.js';

/** What the fault layer needs from a connection. */
export interface ConnectionIO {
  /** Sends a response (ignored for NO_RESPONSE or once closed). */
  send(response: unknown): void;
  /** Closes the connection now; later requests on it are not read. */
  close(): void;
  isClosed(): boolean;
  /** Resolves when the connection has closed. */
  whenClosed(): Promise<void>;
  /**
   * Resolves true once the connection closes within `ms` (real time), else false after `ms`;
   * leaves nothing waiting on the socket either way (a wait per request on a long-lived
   * connection would otherwise add a listener each time).
   */
  closedWithin(ms: number): Promise<boolean>;
  /**
   * Whether the connection was dropped by its listener shutting down (its broker stopped, the
   * server closing), not closed by its client: what it held dies with it.
   */
  droppedByShutdown(): boolean;
}

/** One firing of a rule on one request: what an action's effect works with. */
export interface Firing {
  readonly api: ApiDefinition;
  readonly body: unknown;
  readonly ctx: RequestContext;
  readonly io: ConnectionIO;
  /** The firing's number for its rule, from 0. */
  readonly index: number;
  /** For an action that answers errors: the partitions the rule's `topic`/`partitions` select on a per-partition API, else null (the whole request). */
  readonly partitions: PartitionTarget | null;
  /**
   * For an action that answers with an error: the groups the rule's `group` selects on a request
   * naming several groups answered apart (OffsetFetch v8+, DescribeGroups, DeleteGroups, ...), else
   * null. Only those groups fail (their partitions only, with `partitions`); the others are handled.
   */
  readonly groups: ((groupId: string) => boolean) | null;
  /** Resolves when the rule is removed. */
  readonly ruleGone: Promise<void>;
  /** When the rule expires (epoch ms, real time), or null. */
  readonly ruleExpiresAt: number | null;
  /** Runs the API's handler on `body` (the request or a part of it). */
  handle(body: unknown): Promise<unknown>;
  /** Sends the response and records it in the request log. */
  respond(response: unknown): void;
  /** Records the request's outcome (and the response dropped, if any) without sending anything. */
  finish(outcome: RequestLogEntry['outcome'], response?: unknown): void;
}

/** The `faults add` flag of an action. */
export interface ActionFlag<Spec> {
  /** Commander's flags, e.g. `--throttle <ms>`. */
  readonly flags: string;
  readonly help: string;
  /**
   * The action JSON from the flag's value (`true` for an optional value left out). `delayMs` is
   * the `--delay` given with it; `int` parses a number the way the command line reports errors.
   */
  action(value: string | true, given: { delayMs: number | undefined; int(value: string, flag: string): number }): Spec;
  /** The flag is also the `delayMs` of another action given with it (`--delay`). */
  readonly alsoDelayMs?: boolean;
}

/** An OpenAPI 3.0 schema object. */
export type Schema = Readonly<Record<string, unknown>>;

/**
 * One fault action type. `Spec` is the JSON a rule gives (`{ "type": "throttle", "ms": 100 }`),
 * `Action` the validated form the registry keeps and reports.
 */
export interface FaultActionDefinition<Spec extends { type: string } = { type: string }, Action extends { type: string } = { type: string }> {
  readonly type: Action['type'];
  /** The action's JSON fields besides `type` (their OpenAPI schemas; no other field is accepted) and which are required. */
  readonly fields: Readonly<Record<string, Schema>>;
  readonly required: readonly string[];
  /** Validates the JSON (its fields already checked against `fields`); throws FaultRuleError naming the problem. */
  parse(input: Record<string, unknown>): Action;
  readonly flag: ActionFlag<Spec>;
  /** `times` of a rule that gives neither `times` nor `durationMs` (default 1). */
  defaultTimes?(action: Action): number;
  /**
   * For an action that answers with an error: the error of firing `index`. Such an action fails
   * only the targeted partitions of a per-partition API when the rule names `topic`/`partitions`.
   */
  errorCode?(action: Action, index: number): number;
  /** What the firing does to the request and its connection. */
  fire(action: Action, firing: Firing): Promise<void>;
}

/** Waits `ms` of real time (fault delays model the network, not the server clock). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits `ms` of real time unless the connection's listener drops it first (`droppedByShutdown`:
 * its broker stopped); resolves whether it was dropped. A client's own close does not end it.
 */
export async function sleepUnlessDropped(ms: number, io: ConnectionIO): Promise<boolean> {
  const until = Date.now() + ms;
  if (!(await io.closedWithin(ms))) return false;
  if (io.droppedByShutdown()) return true;
  // Closed by its client: the rest of the delay, then the request is handled as before.
  await sleep(Math.max(0, until - Date.now()));
  return false;
}

/** OpenAPI schema of an integer field. */
export function integer(description: string, minimum?: number, maximum?: number): Schema {
  return { type: 'integer', description, ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) };
}

/** OpenAPI schema of a Kafka error by name or code. */
export const ERROR_REF: Schema = { oneOf: [{ type: 'string', description: 'Kafka error name, e.g. REBALANCE_IN_PROGRESS (not NONE)' }, { type: 'integer', description: 'Kafka error code (not 0)' }] };

/** The `delayMs` field of the actions that may wait before acting (error, errors, close). */
export const DELAY_MS_FIELD = integer('Wait this long (real ms) first', 0, MAX_FAULT_HOLD_MS);

/** `action` with the input's `delayMs`, when given. */
export function withDelayMs<T extends object>(input: Record<string, unknown>, action: T): T & { delayMs?: number } {
  return input['delayMs'] === undefined ? action : { ...action, delayMs: int(input['delayMs'], 'action.delayMs', 0, MAX_FAULT_HOLD_MS) };
}

/** The `--delay` given with an action flag, as its `delayMs`. */
export function delayMsOf(delayMs: number | undefined): { delayMs?: number } {
  return delayMs !== undefined ? { delayMs } : {};
}
