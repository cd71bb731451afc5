/**
 * A refused topic operation, carrying the Kafka error code the API answers with
 * (INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS, ...).
 */
export class TopicError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}
