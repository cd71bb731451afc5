import { CloseConnection } from '../../apis/types.js';
import { AclOperation, AclPermissionType, CLUSTER_NAME, PatternType, ResourceType, type AclBinding } from './acl-types.js';

/** A request Kafka refuses while parsing it (the connection closes, as for any request it cannot read). */
export class UnreadableAclRequest extends CloseConnection {
  override readonly name = 'UnreadableAclRequest';
}

/**
 * The check of Kafka's ACL request constructors (`CreateAclsRequest.validate`,
 * `DescribeAclsRequest`/`DeleteAclsRequest.normalizeAndValidate`): a code equal to UNKNOWN (0) in a
 * resource type, pattern type, operation or permission type makes the request unreadable.
 */
export function checkAclFilterCodes(message: string, entries: ReadonlyArray<{ resourceTypeFilter: number; patternTypeFilter: number; operation: number; permissionType: number }>): void {
  for (const e of entries) {
    if (e.patternTypeFilter === PatternType.UNKNOWN || e.resourceTypeFilter === ResourceType.UNKNOWN || e.operation === AclOperation.UNKNOWN || e.permissionType === AclPermissionType.UNKNOWN) {
      throw new UnreadableAclRequest(message);
    }
  }
}

/**
 * Whether Kafka's `CreateAclsRequest.aclBinding` throws for this creation (`ResourcePattern` refuses
 * resource type ANY and pattern types MATCH and ANY, `AccessControlEntry` operation and permission ANY).
 */
export function unbindableAcl(c: { resourceType: number; resourcePatternType: number; operation: number; permissionType: number }): boolean {
  return c.resourceType === ResourceType.ANY || c.resourcePatternType === PatternType.MATCH || c.resourcePatternType === PatternType.ANY
    || c.operation === AclOperation.ANY || c.permissionType === AclPermissionType.ANY;
}

const name = (table: Record<string, number>, code: number): string => Object.entries(table).find(([, c]) => c === code)?.[0] ?? 'UNKNOWN';

/**
 * Why Kafka 4.3 refuses to create an ACL (`AclApis.handleCreateAcls`, then
 * `AclControlManager.validateNewAcl`), or null to create it. The messages are Kafka's.
 */
export function newAclError(b: AclBinding): string | null {
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (b.resourceName === '') return 'Invalid empty resource name';
  const resourceType = name(ResourceType, b.resourceType);
  if (resourceType === 'UNKNOWN' || resourceType === 'ANY') return `Invalid resourceType ${resourceType}`;
  const patternType = name(PatternType, b.patternType);
  if (patternType !== 'LITERAL' && patternType !== 'PREFIXED') return `Invalid patternType ${patternType}`;
  const operation = name(AclOperation, b.operation);
  if (operation === 'UNKNOWN' || operation === 'ANY') return `Invalid operation ${operation}`;
  const permission = name(AclPermissionType, b.permissionType);
  if (permission !== 'DENY' && permission !== 'ALLOW') return `Invalid permissionType ${permission}`;
  return null;
}
