import { MAX_FAULT_HOLD_MS, int } from '../validate.js';
import { integer, type FaultActionDefinition } from './action.js';

/**
 * Never answer: the request is not handled and the connection stops reading further requests
 * (the client times out). With `closeAfterMs` the connection is closed after that long.
 */
export interface HangActionSpec {
  type: 'hang';
  closeAfterMs?: number;
}

export type HangAction = HangActionSpec;

export const hangAction: FaultActionDefinition<HangActionSpec, HangAction> = {
  type: 'hang',
  fields: { closeAfterMs: integer(`Close the connection after this long (default and most: ${MAX_FAULT_HOLD_MS} ms)`, 0, MAX_FAULT_HOLD_MS) },
  required: [],
  parse: (input) => (input['closeAfterMs'] === undefined ? { type: 'hang' } : { type: 'hang', closeAfterMs: int(input['closeAfterMs'], 'action.closeAfterMs', 0, MAX_FAULT_HOLD_MS) }),
  flag: {
    flags: '--hang [closeAfterMs]',
    help: 'action: never answer (optionally close the connection after ms)',
    action: (value, { int: parse }) => (value === true ? { type: 'hang' } : { type: 'hang', closeAfterMs: parse(value, '--hang') }),
  },
  async fire(action, f) {
    f.finish('no-response');
    // Ends when the client gives up, after closeAfterMs, or when the rule is removed or
    // expires: a client that never drops a timed-out connection must not stay stuck on it.
    // At most MAX_FAULT_HOLD_MS even without closeAfterMs; the timers go once the hang ends.
    const timers: NodeJS.Timeout[] = [];
    const after = (ms: number): Promise<void> => new Promise((resolve) => timers.push(setTimeout(resolve, ms)));
    const ends: Array<Promise<unknown>> = [f.io.whenClosed(), f.ruleGone, after(action.closeAfterMs ?? MAX_FAULT_HOLD_MS)];
    if (f.ruleExpiresAt !== null) ends.push(after(Math.max(0, f.ruleExpiresAt - Date.now())));
    await Promise.race(ends);
    for (const t of timers) clearTimeout(t);
    f.io.close();
  },
};
