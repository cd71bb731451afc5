/** An error answered to a KIP-848 request (Kafka's `ApiException` subclasses), with its message. */
export class ConsumerGroupError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}
