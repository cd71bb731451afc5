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
  /**
   * The error message the answer carries where its response has one for the error (CreateTopics'
   * topic results, DescribeGroups' groups, top-level messages, ...), as a broker's reason would;
   * none by default.
   */
  message?: string;
}

export interface ErrorAction {
  type: 'error';
  error: string;
  errorCode: number;
  delayMs?: number;
  message?: string;
}

/** The most characters of a fault's error message: Kafka's longest string (32,767 bytes) holds them whatever their UTF-8. */
const MAX_MESSAGE_CHARS = 10_000;

/** The effect of the error actions: after `delayMs`, the request answered with `errorCode` (Kafka's `getErrorResponse`, or per partition), with `message` where it has a message for it. */
export async function answerWithError(errorCode: number, delayMs: number | undefined, f: Firing, message?: string): Promise<void> {
  if (delayMs) await sleep(delayMs);
  const response = await faultErrorResponse(f.api, f.ctx.apiVersion, f.body, errorCode, f.partitions, f.ctx.broker, f.handle, f.groups);
  if (message !== undefined) setErrorMessages(response, errorCode, message);
  f.respond(response);
}

/** Sets `errorMessage` on every entry of `response` (depth first, byte buffers skipped) answering `errorCode`. */
function setErrorMessages(response: unknown, errorCode: number, message: string): void {
  if (response === null || typeof response !== 'object' || Buffer.isBuffer(response)) return;
  if (Array.isArray(response)) {
    for (const item of response) setErrorMessages(item, errorCode, message);
    return;
  }
  const entry = response as Record<string, unknown>;
  if (entry['errorCode'] === errorCode && 'errorMessage' in entry) entry['errorMessage'] = message;
  for (const value of Object.values(entry)) if (typeof value === 'object') setErrorMessages(value, errorCode, message);
}

export const errorAction: FaultActionDefinition<ErrorActionSpec, ErrorAction> = {
  type: 'error',
  fields: {
    error: ERROR_REF,
    delayMs: DELAY_MS_FIELD,
    message: { type: 'string', maxLength: MAX_MESSAGE_CHARS, description: "The error message the answer carries where its response has one for the error (CreateTopics' topic results, DescribeGroups' groups, top-level messages); none by default" },
  },
  required: ['error'],
  parse(input) {
    if (input['error'] === undefined) throw new FaultRuleError('action.error is required (an error name or number)');
    const { code, name } = resolveError(input['error'] as ErrorRef, 'action.error');
    const message = input['message'];
    if (message !== undefined && (typeof message !== 'string' || message.length > MAX_MESSAGE_CHARS)) throw new FaultRuleError(`action.message must be a string of at most ${MAX_MESSAGE_CHARS} characters`);
    return withDelayMs(input, { type: 'error', error: name, errorCode: code, ...(message === undefined ? {} : { message }) });
  },
  flag: {
    flags: '--error <name|code>',
    help: 'action: answer with this error',
    action: (value, { delayMs }) => ({ type: 'error', error: String(value), ...delayMsOf(delayMs) }),
  },
  errorCode: (action) => action.errorCode,
  fire: (action, f) => answerWithError(action.errorCode, action.delayMs, f, action.message),
};
