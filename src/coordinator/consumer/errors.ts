import { ErrorCode } from '../../protocol/errors.js';

/** An error answered to a KIP-848 request (Kafka's `ApiException` subclasses), with its message. */
export class ConsumerGroupError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * FENCED_INSTANCE_ID as Kafka 4.3.1's `GroupMetadataManager.throwIfInstanceIdIsFenced`: `memberId`
 * (the requester) names `instanceId`, which `ownerId` holds.
 */
export function instanceIdFenced(memberId: string, instanceId: string, ownerId: string): ConsumerGroupError {
  return new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${instanceId} was fenced by member ${ownerId}.`);
}

/** GROUP_ID_NOT_FOUND as Kafka 4.3.1's `getOrMaybeCreateConsumerGroup` (a heartbeat, epoch above 0, to no group; a leave says "Group X not found."). */
export function consumerGroupNotFound(groupId: string): ConsumerGroupError {
  return new ConsumerGroupError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
}
