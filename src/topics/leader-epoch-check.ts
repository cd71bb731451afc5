import { ErrorCode } from '../protocol/errors.js';

/**
 * Kafka's `Partition.validateLeaderEpoch`: a client's current leader epoch (-1: none, no check)
 * below the partition's -> FENCED_LEADER_EPOCH (the client is behind), above it ->
 * UNKNOWN_LEADER_EPOCH (this broker is behind); NONE otherwise.
 */
export function leaderEpochError(current: number, partitionEpoch: number): number {
  if (current < 0) return ErrorCode.NONE;
  if (current < partitionEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (current > partitionEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
  return ErrorCode.NONE;
}
