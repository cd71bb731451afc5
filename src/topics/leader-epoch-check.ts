import { ErrorCode } from '../protocol/errors.js';

/**
 * Kafka's `Partition.validateLeaderEpoch`: a client's current leader epoch below the partition's
 * -> FENCED_LEADER_EPOCH (the client is behind), above it -> UNKNOWN_LEADER_EPOCH (this broker is
 * behind); NONE otherwise, and for none given. None is any negative epoch for Fetch
 * (`FetchRequest.optionalEpoch`), only -1 (`NO_PARTITION_LEADER_EPOCH`) for ListOffsets and
 * OffsetForLeaderEpoch, whose other negative epochs are fenced (`onlyMinusOneIsNone`; seen from a
 * 4.3.1 broker, adversarial trial 24).
 */
export function leaderEpochError(current: number, partitionEpoch: number, onlyMinusOneIsNone = false): number {
  if (onlyMinusOneIsNone ? current === -1 : current < 0) return ErrorCode.NONE;
  if (current < partitionEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (current > partitionEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
  return ErrorCode.NONE;
}
