/**
 * A server side of one SASL mechanism for one authentication (Kafka's `javax.security.sasl.SaslServer`
 * as `SaslServerAuthenticator` drives it): `evaluate` takes each client token and returns the
 * server's, until `complete`.
 */
export interface SaslServerSession {
  readonly mechanism: string;
  /** The next server token for this client token; throws SaslAuthenticationError or SaslCredentialError. */
  evaluate(token: Buffer): Buffer;
  readonly complete: boolean;
  /** The authenticated user (`getAuthorizationID`), once complete. */
  readonly authorizationId: string;
}

/**
 * Kafka's `SaslAuthenticationException`: the message is sent to the client in SaslAuthenticate's
 * error message ("Authentication failed: Invalid username or password").
 */
export class SaslAuthenticationError extends Error {
  override readonly name = 'SaslAuthenticationError';
}

/**
 * Kafka's `SaslException`: the client gets only "Authentication failed during authentication due to
 * invalid credentials with SASL mechanism <M>"; the message here is for our log.
 */
export class SaslCredentialError extends Error {
  override readonly name = 'SaslCredentialError';
}

/** Makes a session per authentication attempt. */
export type SaslServerFactory = () => SaslServerSession;
