import { MAX_FAULT_HOLD_MS, int } from '../validate.js';
import { integer, sleep, type FaultActionDefinition } from './action.js';

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
    await sleep(action.ms);
    f.respond(await f.handle(f.body));
  },
};
