/**
 * The states of a classic group, named as Kafka's `ClassicGroupState` prints them (these strings
 * go on the wire in DescribeGroups and ListGroups).
 */
export const ClassicGroupState = {
  EMPTY: 'Empty',
  PREPARING_REBALANCE: 'PreparingRebalance',
  COMPLETING_REBALANCE: 'CompletingRebalance',
  STABLE: 'Stable',
  DEAD: 'Dead',
} as const;

export type ClassicGroupState = (typeof ClassicGroupState)[keyof typeof ClassicGroupState];

const { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD } = ClassicGroupState;

/**
 * The states a group may enter each state from (Kafka's `ClassicGroupState.validPreviousStates`).
 * A transition outside this table is a bug in the coordinator, so `ClassicGroup.transitionTo` throws.
 */
export const VALID_PREVIOUS_STATES: Readonly<Record<ClassicGroupState, readonly ClassicGroupState[]>> = {
  [EMPTY]: [PREPARING_REBALANCE],
  [PREPARING_REBALANCE]: [STABLE, COMPLETING_REBALANCE, EMPTY],
  [COMPLETING_REBALANCE]: [PREPARING_REBALANCE],
  [STABLE]: [COMPLETING_REBALANCE],
  [DEAD]: [STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD],
};

const ALL_STATES: readonly ClassicGroupState[] = [EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD];

/** Parses a state name case-insensitively (ListGroups v4+ filters), or undefined when unknown. */
export function parseClassicGroupState(name: string): ClassicGroupState | undefined {
  const wanted = name.trim().toLowerCase();
  return ALL_STATES.find((s) => s.toLowerCase() === wanted);
}
