import { MAX_FAULT_HOLD_MS, int } from '../validate.js';
import { integer, sleepUnlessDropped, type FaultActionDefinition } from './action.js';

/** Wait `ms` (real time), then handle the request and respond normally. */
export interface DelayActionSpec {
  type: 'delay';
  ms: number;
}

export type DelayAction = DelayActionSpec;

export const delayAction: FaultActionDefinition<DelayActionSpec, DelayAction> = {
  type: 'delay',
  fields: { ms: integer('Delay before handling and responding', 0, MAX_FAULT_HOLD_MS) },
  required: ['ms'],
  parse: (input) => ({ type: 'delay', ms: int(input['ms'], 'action.ms', 0, MAX_FAULT_HOLD_MS) }),
  flag: {
    flags: '--delay <ms>',
    help: 'action: wait, then handle (or: wait before --error/--errors/--close)',
    action: (_value, { delayMs }) => ({ type: 'delay', ms: delayMs! }),
    alsoDelayMs: true,
  },
  async fire(action, f) {
    // A stopped broker's queued requests die with it: one its listener drops meanwhile is never
    // handled (a client's retry on the new leader was applied, then the held request too, twice;
    // adversarial trial, session 30). One whose client hung up is, at the end of the delay, as
    // Kafka handles a request it read before the client went away.
    if (await sleepUnlessDropped(action.ms, f.io)) {
      f.finish('closed');
      return;
    }
    f.respond(await f.handle(f.body));
  },
};
