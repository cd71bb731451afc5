import type { SaslAuthenticateRequest } from '../protocol/messages/SaslAuthenticateRequest.js';
import type { SaslAuthenticateResponse } from '../protocol/messages/SaslAuthenticateResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { EMPTY_BYTES } from '../protocol/primitives.js';
import { errorMessageOf } from '../protocol/error-messages.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * SaslAuthenticate (key 36, v0-2; v1 adds the session lifetime, v2 is flexible). The tokens of an
 * authentication are the connection's authenticator's (src/server/sasl-gate.ts); one that reaches
 * this handler arrived outside an authentication and answers ILLEGAL_SASL_STATE with Kafka's
 * message (`KafkaApis.handleSaslAuthenticateRequest`).
 */
export const api: ApiDefinition<SaslAuthenticateRequest, SaslAuthenticateResponse> = {
  apiKey: 36,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 2,
  // SaslAuthenticateRequest.getErrorResponse: the error and its message.
  errorResponse: (_req, _version, errorCode) => ({ errorCode, errorMessage: errorMessageOf(errorCode), authBytes: EMPTY_BYTES, sessionLifetimeMs: 0n }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle() {
    return {
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
      errorMessage: 'SaslAuthenticate request received after successful authentication',
      authBytes: EMPTY_BYTES,
      sessionLifetimeMs: 0n,
    };
  },
};
