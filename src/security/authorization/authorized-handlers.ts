import type { ApiDefinition, RequestContext } from '../../apis/types.js';
import { API_NAMES } from '../../protocol/messages/index.js';
import type { StandardAuthorizer } from '../acl/authorizer.js';
import { API_CHECKS } from './api-checks.js';
import { requestAuth } from './request-auth.js';
import { ResourceType } from '../acl/acl-types.js';

/**
 * The handlers with authorization in front of each (`API_CHECKS`), as Kafka's `KafkaApis` checks
 * before it serves. Only used when an authorizer is configured: without one the handlers are
 * served as they are, at no cost. Fault rules still come first (they are the test's own controls),
 * then these checks, then the simulated cluster's routing (NOT_COORDINATOR comes after an
 * authorization error in Kafka too). Throws at start for a served API without a check.
 */
export function authorizedHandlers(handlers: ReadonlyMap<number, ApiDefinition>, authorizer: StandardAuthorizer): ReadonlyMap<number, ApiDefinition> {
  const out = new Map<number, ApiDefinition>();
  for (const [key, api] of handlers) {
    const check = API_CHECKS[key];
    if (!check) throw new Error(`${API_NAMES[key] ?? `API ${key}`} has no authorization check (src/security/authorization/api-checks.ts): refusing to serve it with an authorizer`);
    out.set(key, {
      ...api,
      handle: (body: unknown, ctx: RequestContext) => {
        const auth = requestAuth(authorizer, ctx);
        // The handler sees the same answers (ShareFetch checks its topics after its share session).
        const authorized: RequestContext = { ...ctx, authorizeTopic: (operation, topic) => auth.allowed(operation, ResourceType.TOPIC, topic) };
        return check(body, authorized, auth, (b: unknown) => api.handle(b, authorized), api) as ReturnType<ApiDefinition['handle']>;
      },
    });
  }
  return out;
}
