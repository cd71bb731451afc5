import type { ClassicState } from './state.js';
import type { Rebalancer } from './rebalancer.js';

export type { ClassicSettings } from './state.js';

/** The shared state every classic handler works on, with the rebalancer; one per coordinator. */
export interface ClassicContext extends ClassicState {
  readonly rebalancer: Rebalancer;
}
