import { ErrorCode } from './errors.js';

/**
 * Kafka's default message of an error (`Errors.message()`, the text of `Errors.X.exception()`),
 * for the errors whose responses carry a message when Kafka raises them without one of its own.
 */
export const ERROR_MESSAGES: Readonly<Record<number, string>> = {
  [ErrorCode.TOPIC_AUTHORIZATION_FAILED]: 'Topic authorization failed.',
  [ErrorCode.GROUP_AUTHORIZATION_FAILED]: 'Group authorization failed.',
  [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]: 'Cluster authorization failed.',
  [ErrorCode.UNSUPPORTED_SASL_MECHANISM]: 'The broker does not support the requested SASL mechanism.',
  [ErrorCode.ILLEGAL_SASL_STATE]: 'Request is not valid given the current SASL state.',
  [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]: 'Transactional Id authorization failed.',
  [ErrorCode.SECURITY_DISABLED]: 'Security features are disabled.',
  [ErrorCode.SASL_AUTHENTICATION_FAILED]: 'SASL Authentication failed.',
  [ErrorCode.RESOURCE_NOT_FOUND]: 'A request illegally referred to a resource that does not exist.',
  [ErrorCode.DUPLICATE_RESOURCE]: 'A request illegally referred to the same resource twice.',
  [ErrorCode.UNACCEPTABLE_CREDENTIAL]: 'Requested credential would not meet criteria for acceptability.',
};

/** Kafka's default message of `code`, or null when we do not carry one. */
export function errorMessageOf(code: number): string | null {
  return ERROR_MESSAGES[code] ?? null;
}
