/**
 * Authorized-operations bit sets (Kafka's `AclOperation` codes as bit positions), for the
 * responses that report them. There is no authorizer here: every client may do everything a
 * Kafka broker without an authorizer allows.
 */

/** The value Kafka sends when the client did not ask for authorized operations. */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

const READ = 3;
const DELETE = 6;
const DESCRIBE = 8;
const DESCRIBE_CONFIGS = 10;
const ALTER_CONFIGS = 11;

/** What Kafka 4.3 reports for a group (READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS) = 3400. */
export const GROUP_AUTHORIZED_OPERATIONS = (1 << READ) | (1 << DELETE) | (1 << DESCRIBE) | (1 << DESCRIBE_CONFIGS) | (1 << ALTER_CONFIGS);
