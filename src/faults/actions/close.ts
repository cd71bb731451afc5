import { FaultRuleError } from '../validate.js';
import { DELAY_MS_FIELD, delayMsOf, sleep, withDelayMs, type FaultActionDefinition } from './action.js';

/**
 * Close the connection. `before`: the request is not applied. `after`: the request is handled
 * (a commit is durable) and the response is dropped ("applied but response lost").
 */
export interface CloseActionSpec {
  type: 'close';
  when: 'before' | 'after';
  /** Wait this long (real ms) first. */
  delayMs?: number;
}

export type CloseAction = CloseActionSpec;

export const closeAction: FaultActionDefinition<CloseActionSpec, CloseAction> = {
  type: 'close',
  fields: {
    when: { type: 'string', enum: ['before', 'after'], default: 'before', description: 'before: not applied; after: applied, response lost' },
    delayMs: DELAY_MS_FIELD,
  },
  required: [],
  parse(input) {
    const when = input['when'] ?? 'before';
    if (when !== 'before' && when !== 'after') throw new FaultRuleError('action.when must be "before" (not applied) or "after" (applied, response lost)');
    return withDelayMs(input, { type: 'close', when });
  },
  flag: {
    flags: '--close <before|after>',
    help: 'action: close the connection before (not applied) or after (applied, response lost) handling',
    action: (value, { delayMs }) => ({ type: 'close', when: value as CloseActionSpec['when'], ...delayMsOf(delayMs) }),
  },
  async fire(action, f) {
    if (action.delayMs) await sleep(action.delayMs);
    if (action.when === 'after') {
      const dropped = await f.handle(f.body);
      f.finish('closed', dropped);
    } else {
      f.finish('closed');
    }
    f.io.close();
  },
};
