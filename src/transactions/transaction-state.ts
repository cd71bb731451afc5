/**
 * The states of a transactional id, with the ids `__transaction_state` stores and the names
 * DescribeTransactions and ListTransactions answer (Kafka 4.3's `TransactionState` in the
 * transaction-coordinator module), and which state each may follow (`validPreviousStates`).
 */
export const TxnState = {
  EMPTY: 0,
  ONGOING: 1,
  PREPARE_COMMIT: 2,
  PREPARE_ABORT: 3,
  COMPLETE_COMMIT: 4,
  COMPLETE_ABORT: 5,
  DEAD: 6,
  PREPARE_EPOCH_FENCE: 7,
} as const;
export type TxnState = (typeof TxnState)[keyof typeof TxnState];

interface StateInfo {
  readonly name: string;
  /** The states this one may be entered from. */
  readonly from: readonly TxnState[];
}

const { EMPTY, ONGOING, PREPARE_COMMIT, PREPARE_ABORT, COMPLETE_COMMIT, COMPLETE_ABORT, DEAD, PREPARE_EPOCH_FENCE } = TxnState;

/** By state id: its name and the states it may follow (Kafka 4.3; PrepareAbort from Empty/Complete* is transaction version 2's abort of an empty transaction). */
const STATES: Readonly<Record<TxnState, StateInfo>> = {
  [EMPTY]: { name: 'Empty', from: [EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT] },
  [ONGOING]: { name: 'Ongoing', from: [ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT] },
  [PREPARE_COMMIT]: { name: 'PrepareCommit', from: [ONGOING] },
  [PREPARE_ABORT]: { name: 'PrepareAbort', from: [ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT] },
  [COMPLETE_COMMIT]: { name: 'CompleteCommit', from: [PREPARE_COMMIT] },
  [COMPLETE_ABORT]: { name: 'CompleteAbort', from: [PREPARE_ABORT] },
  [DEAD]: { name: 'Dead', from: [EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT] },
  [PREPARE_EPOCH_FENCE]: { name: 'PrepareEpochFence', from: [ONGOING] },
};

/** The name Kafka shows for a state ("Ongoing", "CompleteCommit", ...). */
export function txnStateName(state: TxnState): string {
  return STATES[state].name;
}

/** The state of a name (ListTransactions' filter), or undefined for a name Kafka does not have. */
export function txnStateByName(name: string): TxnState | undefined {
  for (const [id, info] of Object.entries(STATES)) if (info.name === name) return Number(id) as TxnState;
  return undefined;
}

/** Whether `to` may follow `from` (`TransactionState.isValidTransition`). */
export function isValidTransition(from: TxnState, to: TxnState): boolean {
  return STATES[to].from.includes(from);
}

/** Whether a state id read from `__transaction_state` is one Kafka 4.3 has. */
export function isTxnState(id: number): id is TxnState {
  return Object.hasOwn(STATES, id);
}

/** The states in which a transaction is open or being completed (Kafka's `TransactionState` "is ongoing/prepare"). */
export function isCompletingOrOpen(state: TxnState): boolean {
  return state === ONGOING || state === PREPARE_COMMIT || state === PREPARE_ABORT || state === PREPARE_EPOCH_FENCE;
}
