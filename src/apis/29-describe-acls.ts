import type { DescribeAclsRequest } from '../protocol/messages/DescribeAclsRequest.js';
import type { DescribeAclsResource, DescribeAclsResponse } from '../protocol/messages/DescribeAclsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { normalizeFilter } from '../security/acl/acl-types.js';
import { checkAclFilterCodes } from '../security/acl/acl-requests.js';
import { errorMessageOf } from '../protocol/error-messages.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * DescribeAcls (key 29, v1-3; v2 flexible), as Kafka 4.3's `AclApis.handleDescribeAcls` with the
 * `StandardAuthorizer`'s ACL cache: the ACLs the filter matches, grouped by resource pattern.
 * Without an authorizer SECURITY_DISABLED ("No Authorizer is configured on the broker"). A filter
 * with an UNKNOWN (0) type, pattern type, operation or permission closes the connection, as Kafka's
 * request parsing refuses it. (DESCRIBE on the cluster: src/security/authorization.)
 */
export const api: ApiDefinition<DescribeAclsRequest, DescribeAclsResponse> = {
  apiKey: 29,
  name: 'DescribeAcls',
  minVersion: 1,
  maxVersion: 3,
  // DescribeAclsRequest.getErrorResponse: the error and its message, no resources.
  errorResponse: (_req, _version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: errorMessageOf(errorCode), resources: [] }),
  names: namesNothing,
  largeAnswers: true,
  routing: ANY_BROKER,
  handle(req, ctx) {
    checkAclFilterCodes('DescribeAclsRequest contains UNKNOWN elements', [req]);
    const authorizer = ctx.broker.authorizer;
    if (!authorizer) return { throttleTimeMs: 0, errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured on the broker', resources: [] };
    const filter = normalizeFilter({
      resourceType: req.resourceTypeFilter, resourceName: req.resourceNameFilter, patternType: req.patternTypeFilter,
      principal: req.principalFilter, host: req.hostFilter, operation: req.operation, permissionType: req.permissionType,
    });
    const byPattern = new Map<string, DescribeAclsResource>();
    for (const acl of authorizer.list(filter)) {
      const key = JSON.stringify([acl.resourceType, acl.resourceName, acl.patternType]);
      let resource = byPattern.get(key);
      if (!resource) byPattern.set(key, (resource = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] }));
      resource.acls.push({ principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permissionType });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', resources: [...byPattern.values()] };
  },
};
