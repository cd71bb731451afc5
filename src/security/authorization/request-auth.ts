import type { RequestContext } from '../../apis/types.js';
import { ANONYMOUS } from '../principal.js';
import { javaHostAddress, type Requester, type StandardAuthorizer } from '../acl/authorizer.js';
import { CLUSTER_NAME, ResourceType } from '../acl/acl-types.js';

/** The authorizer's answers for one request's principal and client address (Kafka's `AuthHelper`). */
export interface RequestAuth {
  readonly requester: Requester;
  /** `AuthHelper.authorize`: may the principal do `operation` on this literal resource? */
  allowed(operation: number, resourceType: number, name: string): boolean;
  /** The same for the one CLUSTER resource (`kafka-cluster`). */
  cluster(operation: number): boolean;
  /** `AuthHelper.authorizedOperations`: the bit field of allowed operations. */
  operations(resourceType: number, name: string): number;
  /** `AuthHelper.authorizeByResourceType`. */
  byResourceType(operation: number, resourceType: number): boolean;
}

/** Binds the authorizer to a request; answers are memoized for the request (many partitions, few topics). */
export function requestAuth(authorizer: StandardAuthorizer, ctx: RequestContext): RequestAuth {
  const requester: Requester = { principal: ctx.principal ?? ANONYMOUS, host: javaHostAddress(ctx.clientHost.replace(/^\//, '')) };
  const memo = new Map<string, boolean>();
  const allowed = (operation: number, resourceType: number, name: string): boolean => {
    const key = `${operation}\u0000${resourceType}\u0000${name}`;
    let answer = memo.get(key);
    if (answer === undefined) memo.set(key, (answer = authorizer.authorize(requester, operation, resourceType, name)));
    return answer;
  };
  return {
    requester,
    allowed,
    cluster: (operation) => allowed(operation, ResourceType.CLUSTER, CLUSTER_NAME),
    operations: (resourceType, name) => authorizer.authorizedOperations(requester, resourceType, name),
    byResourceType: (operation, resourceType) => authorizer.authorizeByResourceType(requester, operation, resourceType),
  };
}
