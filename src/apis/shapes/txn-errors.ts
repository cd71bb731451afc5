/** Error rules the transaction APIs share. */
import { ErrorCode } from '../../protocol/errors.js';

/**
 * KIP-588: clients of a version below `fencedFrom` do not know PRODUCER_FENCED (90) and get
 * INVALID_PRODUCER_EPOCH (47) instead, as `KafkaApis` answers InitProducerId (< v4),
 * AddPartitionsToTxn, AddOffsetsToTxn and EndTxn (< v2).
 */
export function fencedForVersion(errorCode: number, version: number, fencedFrom: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && version < fencedFrom ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}
