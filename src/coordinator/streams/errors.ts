/** An error answered to a streams-group request (Kafka's `ApiException` subclasses), with its message. */
export class StreamsGroupError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}
