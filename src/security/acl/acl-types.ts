/**
 * Kafka's ACL vocabulary (`org.apache.kafka.common.acl`, `org.apache.kafka.common.resource`): the
 * wire codes of resource types, pattern types, operations and permission types, an ACL binding,
 * and the filter matching of Describe/DeleteAcls (`ResourcePatternFilter.matches`,
 * `AccessControlEntryFilter.matches`).
 */

export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const;
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8, CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12, CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14, TWO_PHASE_COMMIT: 15,
} as const;
export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

export type ResourceTypeCode = (typeof ResourceType)[keyof typeof ResourceType];
export type OperationCode = (typeof AclOperation)[keyof typeof AclOperation];

/** The name of the one CLUSTER resource (`Resource.CLUSTER_NAME`). */
export const CLUSTER_NAME = 'kafka-cluster';
/** The wildcard resource name and principal (`ResourcePattern.WILDCARD_RESOURCE`, `User:*`). */
export const WILDCARD = '*';

/** `AclEntry.supportedOperations`: what each resource type can be authorized for (authorizedOperations bit fields). */
export const SUPPORTED_OPERATIONS: Readonly<Record<number, readonly number[]>> = {
  [ResourceType.TOPIC]: [AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS],
  [ResourceType.GROUP]: [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS],
  [ResourceType.CLUSTER]: [AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE],
  [ResourceType.TRANSACTIONAL_ID]: [AclOperation.DESCRIBE, AclOperation.WRITE, AclOperation.TWO_PHASE_COMMIT],
  [ResourceType.DELEGATION_TOKEN]: [AclOperation.DESCRIBE],
  [ResourceType.USER]: [AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS],
};

/** One ACL (`AclBinding`): a resource pattern and an access control entry. */
export interface AclBinding {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  /** `User:alice`, `User:*`. */
  readonly principal: string;
  /** An IP address, or `*`. */
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** A Describe/DeleteAcls filter (`AclBindingFilter`): null names, principals and hosts match anything. */
export interface AclBindingFilter {
  readonly resourceType: number;
  readonly resourceName: string | null;
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

const known = (table: Record<string, number>, code: number): boolean => Object.values(table).includes(code);

/** Codes outside Kafka's enums read as UNKNOWN, as `fromCode` does. */
export function normalizeFilter(f: AclBindingFilter): AclBindingFilter {
  return {
    ...f,
    resourceType: known(ResourceType, f.resourceType) ? f.resourceType : ResourceType.UNKNOWN,
    patternType: known(PatternType, f.patternType) ? f.patternType : PatternType.UNKNOWN,
    operation: known(AclOperation, f.operation) ? f.operation : AclOperation.UNKNOWN,
    permissionType: known(AclPermissionType, f.permissionType) ? f.permissionType : AclPermissionType.UNKNOWN,
  };
}

/** `AclBindingFilter.matches`: the resource pattern filter, then the entry filter. */
export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.resourceName !== null) {
    if (f.patternType === PatternType.ANY || f.patternType === b.patternType) {
      if (f.resourceName !== b.resourceName) return false;
    } else if (b.patternType === PatternType.LITERAL) {
      if (f.resourceName !== b.resourceName && b.resourceName !== WILDCARD) return false;
    } else if (b.patternType === PatternType.PREFIXED) {
      if (!f.resourceName.startsWith(b.resourceName)) return false;
    } else {
      return false;
    }
  }
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== b.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === b.permissionType;
}

export function sameBinding(a: AclBinding, b: AclBinding): boolean {
  return a.resourceType === b.resourceType && a.resourceName === b.resourceName && a.patternType === b.patternType
    && a.principal === b.principal && a.host === b.host && a.operation === b.operation && a.permissionType === b.permissionType;
}
