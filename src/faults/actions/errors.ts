import type { ErrorRef } from '../validate.js';
import { FaultRuleError, resolveError } from '../validate.js';
import { DELAY_MS_FIELD, ERROR_REF, delayMsOf, withDelayMs, type FaultActionDefinition } from './action.js';
import { answerWithError } from './error.js';

/** One error per firing, in order (cycling if the rule outlives the list). `times` defaults to the list length. */
export interface ErrorsActionSpec {
  type: 'errors';
  errors: ErrorRef[];
  /** Wait this long (real ms) first. */
  delayMs?: number;
}

export interface ErrorsAction {
  type: 'errors';
  errors: string[];
  errorCodes: number[];
  delayMs?: number;
}

/** The error of firing `index`: the list in order, again from its start once used up. */
const errorOf = (action: ErrorsAction, index: number): number => action.errorCodes[index % action.errorCodes.length]!;

export const errorsAction: FaultActionDefinition<ErrorsActionSpec, ErrorsAction> = {
  type: 'errors',
  fields: { errors: { type: 'array', minItems: 1, items: ERROR_REF }, delayMs: DELAY_MS_FIELD },
  required: ['errors'],
  parse(input) {
    const list = input['errors'];
    if (!Array.isArray(list) || list.length === 0) throw new FaultRuleError('action.errors must be a non-empty array of error names or numbers');
    const resolved = list.map((e, i) => resolveError(e as ErrorRef, `action.errors[${i}]`));
    return withDelayMs(input, { type: 'errors', errors: resolved.map((r) => r.name), errorCodes: resolved.map((r) => r.code) });
  },
  flag: {
    flags: '--errors <e1,e2,...>',
    help: 'action: one error per matching request, in order',
    action: (value, { delayMs }) => ({ type: 'errors', errors: String(value).split(',').map((e) => e.trim()).filter((e) => e !== ''), ...delayMsOf(delayMs) }),
  },
  defaultTimes: (action) => action.errors.length,
  errorCode: errorOf,
  fire: (action, f) => answerWithError(errorOf(action, f.index), action.delayMs, f),
};
