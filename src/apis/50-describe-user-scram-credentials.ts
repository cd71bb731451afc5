import type { DescribeUserScramCredentialsRequest } from '../protocol/messages/DescribeUserScramCredentialsRequest.js';
import type { DescribeUserScramCredentialsResponse, DescribeUserScramCredentialsResult } from '../protocol/messages/DescribeUserScramCredentialsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * DescribeUserScramCredentials (key 50, v0), as Kafka 4.3's `ScramImage.describe`: null or no
 * users lists every user with a credential; a user named twice answers DUPLICATE_RESOURCE, one
 * without credentials RESOURCE_NOT_FOUND, each with Kafka's message; each credential gives its
 * mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512) and iterations, never salt or keys.
 */
export const api: ApiDefinition<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse> = {
  apiKey: 50,
  name: 'DescribeUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  // DescribeUserScramCredentialsRequest.getErrorResponse: one (nameless) result per user named; Kafka 4.3.1 sends no message.
  errorResponse: (req, _version, errorCode) => ({
    throttleTimeMs: 0, errorCode, errorMessage: null,
    results: (req.users ?? []).map(() => ({ user: '', errorCode, errorMessage: null, credentialInfos: [] })),
  }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { scram } = ctx.broker;
    const duplicate = new Set<string>();
    const users: string[] = [];
    if (req.users === null || req.users.length === 0) {
      users.push(...scram.users());
    } else {
      for (const { name } of req.users) {
        if (users.includes(name)) duplicate.add(name);
        else users.push(name);
      }
    }
    const results = users.map((user): DescribeUserScramCredentialsResult => {
      if (duplicate.has(user)) {
        return { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] };
      }
      const infos = scram.describe(user);
      if (infos.length === 0) {
        return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] };
      }
      return { user, errorCode: ErrorCode.NONE, errorMessage: '', credentialInfos: infos.map((i) => ({ mechanism: i.mechanism.type, iterations: i.iterations })) };
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', results };
  },
};
