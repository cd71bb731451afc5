/**
 * A refused topic operation, carrying the Kafka error code the API answers with
 * (INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS, INVALID_PARTITIONS, ...) and its message; a null
 * message is answered as null (a Kafka exception created without one).
 */
export class TopicError extends Error {
  readonly errorMessage: string | null;

  constructor(readonly errorCode: number, message: string | null) {
    super(message ?? '');
    this.errorMessage = message;
  }
}
