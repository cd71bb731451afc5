import type { SaslHandshakeRequest } from '../protocol/messages/SaslHandshakeRequest.js';
import type { SaslHandshakeResponse } from '../protocol/messages/SaslHandshakeResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * SaslHandshake (key 17, v0-1). On a SASL listener the connection's authenticator answers it
 * before authentication (src/server/sasl-gate.ts), and again for a KIP-368 re-authentication. A
 * handshake that reaches this handler (a PLAINTEXT or SSL listener, or an authenticated connection
 * that cannot re-authenticate) answers ILLEGAL_SASL_STATE with no mechanisms, as Kafka's
 * `KafkaApis.handleSaslHandshakeRequest`.
 */
export const api: ApiDefinition<SaslHandshakeRequest, SaslHandshakeResponse> = {
  apiKey: 17,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  // SaslHandshakeRequest.getErrorResponse: the error, no mechanisms.
  errorResponse: (_req, _version, errorCode) => ({ errorCode, mechanisms: [] }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle() {
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
  },
};
