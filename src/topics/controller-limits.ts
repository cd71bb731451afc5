/**
 * Kafka 4.3's `QuorumController.MAX_RECORDS_PER_USER_OP`: the metadata records one user operation
 * may write. The controller builds them in a `BoundedList` of this length; adding one more throws
 * `BoundedListTooLongException` (CreateTopics: POLICY_VIOLATION for the whole request;
 * CreatePartitions: UNKNOWN_SERVER_ERROR for the topic that overflows).
 */
export const MAX_RECORDS_PER_USER_OP = 10_000;
