import { ErrorCode } from './errors.js';
import { KAFKA_ERROR_MESSAGES } from './kafka-error-messages.js';

/**
 * The errors whose responses carry Kafka's default message (`Errors.message()`) where Kafka raises
 * them without one of its own; the others carry none (`errorMessageOf` answers null).
 */
const CARRIES_DEFAULT_MESSAGE: ReadonlySet<number> = new Set([
  ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  ErrorCode.UNSUPPORTED_SASL_MECHANISM,
  ErrorCode.ILLEGAL_SASL_STATE,
  ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  ErrorCode.SECURITY_DISABLED,
  ErrorCode.SASL_AUTHENTICATION_FAILED,
  ErrorCode.RESOURCE_NOT_FOUND,
  ErrorCode.DUPLICATE_RESOURCE,
  ErrorCode.UNACCEPTABLE_CREDENTIAL,
]);

/** Kafka's default message of `code` for the errors that carry it (see `CARRIES_DEFAULT_MESSAGE`), else null. */
export function errorMessageOf(code: number): string | null {
  return CARRIES_DEFAULT_MESSAGE.has(code) ? defaultErrorMessage(code) : null;
}

/** Kafka's `Errors.message()` of `code` (every code of Kafka 4.3.1; "NONE" for 0), null for a code Kafka does not have. */
export function defaultErrorMessage(code: number): string | null {
  return KAFKA_ERROR_MESSAGES[code] ?? null;
}
