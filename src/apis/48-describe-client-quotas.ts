import type { DescribeClientQuotasRequest } from '../protocol/messages/DescribeClientQuotasRequest.js';
import type { DescribeClientQuotasResponse } from '../protocol/messages/DescribeClientQuotasResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

const ENTITY_TYPES = ['user', 'client-id', 'ip'];

/**
 * Why Kafka 4.3's `ClientQuotasImage.describe` refuses a filter (with the error it raises), or null.
 * The messages are Kafka's.
 */
function filterError(req: DescribeClientQuotasRequest): [number, string] | null {
  const seen = new Set<string>();
  for (const c of req.components) {
    if (c.entityType === '') return [ErrorCode.INVALID_REQUEST, 'Invalid empty entity type.'];
    if (seen.has(c.entityType)) return [ErrorCode.INVALID_REQUEST, `Entity type ${c.entityType} cannot appear more than once in the filter.`];
    if (!ENTITY_TYPES.includes(c.entityType)) return [ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`];
    if (c.matchType === 0 && c.match === null) return [ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_EXACT, but set match string to null.'];
    if (c.matchType === 1 && c.match !== null) return [ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.'];
    if (c.matchType === 2 && c.match !== null) return [ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.'];
    if (c.matchType < 0 || c.matchType > 2) return [ErrorCode.INVALID_REQUEST, `Unknown match type ${c.matchType}`];
    seen.add(c.entityType);
  }
  if (seen.has('ip') && (seen.has('user') || seen.has('client-id'))) {
    return [ErrorCode.INVALID_REQUEST, 'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.'];
  }
  return null;
}

/**
 * DescribeClientQuotas (key 48, v0-1). There are no client quotas here, so every valid filter
 * matches nothing (Kafka's answer where none are set); an invalid one answers Kafka's error and
 * message (`ClientQuotasImage.describe`). Served so that `kafka-configs --describe --entity-type
 * users` works (it asks for quotas beside the SCRAM credentials). (DESCRIBE_CONFIGS on the cluster:
 * src/security/authorization.)
 */
export const api: ApiDefinition<DescribeClientQuotasRequest, DescribeClientQuotasResponse> = {
  apiKey: 48,
  name: 'DescribeClientQuotas',
  minVersion: 0,
  maxVersion: 1,
  // DescribeClientQuotasRequest.getErrorResponse: no entries at all; Kafka 4.3.1 sends no message.
  errorResponse: (_req, _version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, entries: null }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req) {
    const error = filterError(req);
    if (error) return { throttleTimeMs: 0, errorCode: error[0], errorMessage: error[1], entries: null };
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', entries: [] };
  },
};
