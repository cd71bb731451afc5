import { MAX_FAULT_HOLD_MS, int } from '../validate.js';
import { integer, type FaultActionDefinition } from './action.js';

/** Handle normally, answer with `throttle_time_ms = ms`, and read nothing more from the connection for `ms` (KIP-219). */
export interface ThrottleActionSpec {
  type: 'throttle';
  ms: number;
}

export type ThrottleAction = ThrottleActionSpec;

export const throttleAction: FaultActionDefinition<ThrottleActionSpec, ThrottleAction> = {
  type: 'throttle',
  fields: { ms: integer('throttle_time_ms to answer (and mute the connection for)', 0, MAX_FAULT_HOLD_MS) },
  required: ['ms'],
  // The connection stays muted for the throttle time: a hold like the others.
  parse: (input) => ({ type: 'throttle', ms: int(input['ms'], 'action.ms', 0, MAX_FAULT_HOLD_MS) }),
  flag: {
    flags: '--throttle <ms>',
    help: 'action: answer with throttle_time_ms',
    action: (value, { int: parse }) => ({ type: 'throttle', ms: parse(String(value), '--throttle') }),
  },
  async fire(action, f) {
    const res = await f.handle(f.body);
    if (res !== null && typeof res === 'object' && 'throttleTimeMs' in res) (res as { throttleTimeMs: number }).throttleTimeMs = action.ms;
    f.respond(res);
    await f.io.closedWithin(action.ms);
  },
};
