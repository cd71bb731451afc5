import type { CreateAclsRequest } from '../protocol/messages/CreateAclsRequest.js';
import type { AclCreationResult, CreateAclsResponse } from '../protocol/messages/CreateAclsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { checkAclFilterCodes, newAclError, unbindableAcl } from '../security/acl/acl-requests.js';
import type { AclBinding } from '../security/acl/acl-types.js';
import { errorMessageOf } from '../protocol/error-messages.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * CreateAcls (key 30, v1-3; v2 flexible), as Kafka 4.3's `AclApis.handleCreateAcls` and the
 * controller's `AclControlManager.validateNewAcl`: a creation naming ANY (resource type,
 * operation, permission) or a MATCH/ANY pattern type cannot be made into an `AclBinding`, which
 * fails the whole request (every result UNKNOWN_SERVER_ERROR without a message, nothing created). Otherwise each
 * creation gets its own result: a CLUSTER resource not named `kafka-cluster`, an empty name, or a
 * code Kafka does not know (read as UNKNOWN) answers INVALID_REQUEST with Kafka's message; an ACL
 * that exists already succeeds without a copy. The accepted ACLs are
 * on disk (`acls.json`) before the answer. A creation with an UNKNOWN (0) code closes the
 * connection, as Kafka's request parsing refuses it. Without an authorizer every creation answers
 * SECURITY_DISABLED. (ALTER on the cluster: src/security/authorization.)
 */
export const api: ApiDefinition<CreateAclsRequest, CreateAclsResponse> = {
  apiKey: 30,
  name: 'CreateAcls',
  minVersion: 1,
  maxVersion: 3,
  // CreateAclsRequest.getErrorResponse: the error on every creation.
  errorResponse: (req, _version, errorCode) => ({ throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode, errorMessage: errorMessageOf(errorCode) })) }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    checkAclFilterCodes('CreatableAcls contain unknown elements', req.creations.map((c) => ({ ...c, patternTypeFilter: c.resourcePatternType, resourceTypeFilter: c.resourceType })));
    const authorizer = ctx.broker.authorizer;
    if (!authorizer) {
      return { throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' })) };
    }
    if (req.creations.some(unbindableAcl)) {
      return { throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null })) };
    }
    const accepted: AclBinding[] = [];
    const results = req.creations.map((c): AclCreationResult => {
      const binding: AclBinding = {
        resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.resourcePatternType,
        principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType,
      };
      const error = newAclError(binding);
      if (error !== null) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: error };
      accepted.push(binding);
      return { errorCode: ErrorCode.NONE, errorMessage: '' };
    });
    authorizer.add(accepted);
    return { throttleTimeMs: 0, results };
  },
};
