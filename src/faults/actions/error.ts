import type { ErrorRef } from '../validate.js';
import { FaultRuleError, resolveError } from '../validate.js';
import { faultErrorResponse } from '../error-response.js';
import { DELAY_MS_FIELD, ERROR_REF, delayMsOf, sleep, withDelayMs, type FaultActionDefinition, type Firing } from './action.js';

/**
 * Answer with this error without running the handler; on a per-partition API with a
 * `topic`/`partitions` match, only those partitions (the rest is handled).
 */
export interface ErrorActionSpec {
  type: 'error';
  error: ErrorRef;
  /** Wait this long (real ms) first. */
  delayMs?: number;
}

export interface ErrorAction {
  type: 'error';
  error: string;
  errorCode: number;
  delayMs?: number;
}

/** The effect of the error actions: after `delayMs`, the request answered with `errorCode` (Kafka's `getErrorResponse`, or per partition). */
export async function answerWithError(errorCode: number, delayMs: number | undefined, f: Firing): Promise<void> {
  if (delayMs) await sleep(delayMs);
  f.respond(await faultErrorResponse(f.api, f.ctx.apiVersion, f.body, errorCode, f.partitions, f.ctx.broker, f.handle, f.groups));
}

export const errorAction: FaultActionDefinition<ErrorActionSpec, ErrorAction> = {
  type: 'error',
  fields: { error: ERROR_REF, delayMs: DELAY_MS_FIELD },
  required: ['error'],
  parse(input) {
    if (input['error'] === undefined) throw new FaultRuleError('action.error is required (an error name or number)');
    const { code, name } = resolveError(input['error'] as ErrorRef, 'action.error');
    return withDelayMs(input, { type: 'error', error: name, errorCode: code });
  },
  flag: {
    flags: '--error <name|code>',
    help: 'action: answer with this error',
    action: (value, { delayMs }) => ({ type: 'error', error: String(value), ...delayMsOf(delayMs) }),
  },
  errorCode: (action) => action.errorCode,
  fire: (action, f) => answerWithError(action.errorCode, action.delayMs, f),
};
