/**
 * The fault actions, one definition each (./<type>.ts): what a rule's `action` may be. The rule
 * parser (`normalizeRule`), the registry (the effect of a firing), the OpenAPI document and the
 * `faults add` flags all iterate over this table; test/faults/actions.test.ts checks that every
 * entry is reachable from each of them. Adding an action: a new file here and a line below.
 */
import type { FaultActionDefinition } from './action.js';
import { errorAction } from './error.js';
import { errorsAction } from './errors.js';
import { delayAction } from './delay.js';
import { hangAction } from './hang.js';
import { closeAction } from './close.js';
import { throttleAction } from './throttle.js';

/** In the order the documentation, the OpenAPI document and `faults add --help` list them. */
export const FAULT_ACTIONS = [errorAction, errorsAction, delayAction, hangAction, closeAction, throttleAction] as const;

type Definition = (typeof FAULT_ACTIONS)[number];

/** What a rule's `action` may be, as given (JSON, `faults.add`). */
export type FaultAction = ReturnType<Definition['flag']['action']>;
/** A validated action, as the registry keeps and reports it. */
export type NormalizedAction = ReturnType<Definition['parse']>;
export type FaultActionType = NormalizedAction['type'];

/* eslint-disable @typescript-eslint/no-explicit-any */
const BY_TYPE = new Map<string, FaultActionDefinition<any, any>>(FAULT_ACTIONS.map((a) => [a.type, a]));

/** The definition of an action type, or undefined. */
export function faultActionDefinition(type: unknown): FaultActionDefinition<any, any> | undefined {
  return typeof type === 'string' ? BY_TYPE.get(type) : undefined;
}

export type { ConnectionIO, FaultActionDefinition, Firing } from './action.js';
