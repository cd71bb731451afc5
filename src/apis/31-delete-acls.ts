import type { DeleteAclsRequest } from '../protocol/messages/DeleteAclsRequest.js';
import type { DeleteAclsFilterResult, DeleteAclsResponse } from '../protocol/messages/DeleteAclsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { normalizeFilter, PatternType, AclOperation, AclPermissionType, ResourceType } from '../security/acl/acl-types.js';
import { checkAclFilterCodes } from '../security/acl/acl-requests.js';
import { errorMessageOf } from '../protocol/error-messages.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * DeleteAcls (key 31, v1-3; v2 flexible), as Kafka 4.3's `AclApis.handleDeleteAcls` and
 * `AclControlManager.deleteAcls`: each filter answers the ACLs it matched and removed (a filter
 * whose pattern type or entry is UNKNOWN answers INVALID_REQUEST); every removal is on disk before
 * the answer. A filter with an UNKNOWN (0) code closes the connection, as Kafka's request parsing
 * refuses it. Without an authorizer every filter answers SECURITY_DISABLED. (ALTER on the
 * cluster: src/security/authorization.)
 */
export const api: ApiDefinition<DeleteAclsRequest, DeleteAclsResponse> = {
  apiKey: 31,
  name: 'DeleteAcls',
  minVersion: 1,
  maxVersion: 3,
  // DeleteAclsRequest.getErrorResponse: the error on every filter.
  errorResponse: (req, _version, errorCode) => ({ throttleTimeMs: 0, filterResults: req.filters.map(() => ({ errorCode, errorMessage: errorMessageOf(errorCode), matchingAcls: [] })) }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    checkAclFilterCodes('Filters contain UNKNOWN elements', req.filters);
    const authorizer = ctx.broker.authorizer;
    if (!authorizer) {
      return { throttleTimeMs: 0, filterResults: req.filters.map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.', matchingAcls: [] })) };
    }
    const filters = req.filters.map((f) => normalizeFilter({
      resourceType: f.resourceTypeFilter, resourceName: f.resourceNameFilter, patternType: f.patternTypeFilter,
      principal: f.principalFilter, host: f.hostFilter, operation: f.operation, permissionType: f.permissionType,
    }));
    // AclControlManager.validateFilter: an UNKNOWN pattern type or entry fails that filter only.
    const invalid = filters.map((f): string | null => {
      if (f.resourceType === ResourceType.UNKNOWN || f.patternType === PatternType.UNKNOWN) return 'Unknown patternFilter.';
      return f.operation === AclOperation.UNKNOWN || f.permissionType === AclPermissionType.UNKNOWN ? 'Unknown entryFilter.' : null;
    });
    const removed = authorizer.remove(filters.filter((_, i) => invalid[i] === null));
    let next = 0;
    const filterResults = filters.map((_, i): DeleteAclsFilterResult => {
      if (invalid[i] !== null) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: invalid[i]!, matchingAcls: [] };
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        matchingAcls: removed[next++]!.map((a) => ({ errorCode: ErrorCode.NONE, errorMessage: null, ...a })),
      };
    });
    return { throttleTimeMs: 0, filterResults };
  },
};
