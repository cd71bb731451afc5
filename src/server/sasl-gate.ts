import type { Logger } from 'pino';
import type { ApiDefinition } from '../apis/types.js';
import { isValidApiVersionsRequest } from '../apis/18-api-versions.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../protocol/errors.js';
import { API_NAMES } from '../protocol/messages/index.js';
import type { ApiVersionsRequest } from '../protocol/messages/ApiVersionsRequest.js';
import type { SaslAuthenticateRequest } from '../protocol/messages/SaslAuthenticateRequest.js';
import type { SaslHandshakeRequest } from '../protocol/messages/SaslHandshakeRequest.js';
import { SaslAuthenticationError, SaslCredentialError, type SaslServerSession } from '../security/sasl/mechanism.js';
import type { SaslListenerConfig } from '../security/sasl/listener-sasl.js';
import { userPrincipal, type KafkaPrincipal } from '../security/principal.js';
import { decodeRequest, encodeResponse, type RequestHeader } from './request-codec.js';

const SASL_HANDSHAKE = 17;
const API_VERSIONS = 18;
const SASL_AUTHENTICATE = 36;
/** Kafka re-authenticates a connection at most once a second (`KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS`). */
const MIN_REAUTH_INTERVAL_MS = 1000;

/** What the gate needs from its connection. */
export interface GateIO {
  /** Writes a framed response. */
  write(bytes: Buffer): void;
  /** Closes now (Kafka: an unexpected exception, or a failure it cannot report). */
  close(reason: string): void;
  /** Sends `response` (if any) after `connection.failed.authentication.delay.ms`, then closes; nothing else is read meanwhile. */
  failAndClose(response: Buffer | null, reason: string, delayMs: number): void;
  /** Serves an ApiVersions frame the usual way (fault rules and the request log included). */
  serveRequest(frame: Buffer): Promise<void> | null;
}

type State =
  | 'initial'
  | 'handshake-or-versions'
  | 'handshake'
  | 'authenticate'
  | 'complete'
  | 'reauth-bad-mechanism';

/**
 * The SASL side of one connection on a SASL_PLAINTEXT or SASL_SSL listener, as Kafka 4.3's
 * `SaslServerAuthenticator` with `KafkaChannel` and `SocketServer`:
 * - Before authentication only ApiVersions (once, before the handshake) and SaslHandshake (v0-1)
 *   are served; any other request closes the connection without an answer ("Unexpected Kafka
 *   request of type X during SASL handshake."). An unknown mechanism answers
 *   UNSUPPORTED_SASL_MECHANISM with the enabled ones, then closes.
 * - After SaslHandshake v1, each token comes in a SaslAuthenticate (v0-2); another request answers
 *   its error response with ILLEGAL_SASL_STATE and closes. After SaslHandshake v0 the tokens are
 *   raw size-prefixed frames.
 * - A failed authentication answers SASL_AUTHENTICATION_FAILED with Kafka's message (the
 *   mechanism's own, or "Authentication failed during authentication due to invalid credentials
 *   with SASL mechanism M"), then closes; answer and close wait
 *   `connection.failed.authentication.delay.ms`, as Kafka delays them.
 * - KIP-368: with `connections.max.reauth.ms` > 0, SaslAuthenticate v1+ tells the client the
 *   session lifetime; a SaslHandshake on the authenticated connection re-authenticates it (same
 *   mechanism and principal, at most once a second), and any other request after the session
 *   expired closes the connection. Session time is the broker's clock (`--clock manual` moves it).
 */
export class SaslGate {
  private state: State = 'initial';
  private session: SaslServerSession | null = null;
  /** Whether tokens come in SaslAuthenticate requests (SaslHandshake v1+). */
  private headers = false;
  private mechanism = '';
  private principalValue: KafkaPrincipal | null = null;
  private sessionExpiresAt: number | null = null;
  private lastReauthAt: number | null = null;
  /** The principal and mechanism being re-authenticated (null: first authentication). */
  private reauth: { principal: KafkaPrincipal; mechanism: string; badMechanismMessage?: string } | null = null;

  constructor(
    private readonly sasl: SaslListenerConfig,
    private readonly broker: Broker,
    private readonly handlers: ReadonlyMap<number, ApiDefinition>,
    private readonly io: GateIO,
    private readonly log: Logger,
  ) {}

  /** The authenticated principal, or null before the first authentication completes. */
  get principal(): KafkaPrincipal | null {
    return this.principalValue;
  }

  /** Whether an authentication is under way (the first, or a re-authentication): frames are then at most `sasl.server.max.receive.size`. */
  get authenticating(): boolean {
    return this.state !== 'complete';
  }

  /**
   * Whether this frame is the gate's to handle: every frame until authenticated and during a
   * re-authentication; on an authenticated connection a SaslHandshake that starts one, and any
   * frame once the session expired (which closes the connection).
   */
  intercepts(frame: Buffer): boolean {
    if (this.state !== 'complete') return true;
    if (this.sessionExpiresAt === null) return false;
    const now = this.broker.time.now();
    const apiKey = frame.length >= 2 ? frame.readInt16BE(0) : -1;
    if (apiKey === SASL_HANDSHAKE && (this.lastReauthAt === null || now - this.lastReauthAt >= MIN_REAUTH_INTERVAL_MS)) {
      this.lastReauthAt = now;
      this.reauth = { principal: this.principalValue!, mechanism: this.mechanism };
      this.state = 'handshake';
      return true;
    }
    return now > this.sessionExpiresAt;
  }

  /** Handles a frame `intercepts` claimed. */
  receive(frame: Buffer): Promise<void> | null {
    if (this.state === 'complete') {
      this.io.close('the SASL session expired (connections.max.reauth.ms)');
      return null;
    }
    if (this.state === 'reauth-bad-mechanism') {
      this.io.close(this.reauth?.badMechanismMessage ?? 'bad re-authentication mechanism');
      return null;
    }
    if (this.state === 'authenticate') {
      if (!this.headers) this.rawToken(frame);
      else this.authenticateRequest(frame);
      return null;
    }
    return this.handshakeOrVersions(frame);
  }

  private decode(frame: Buffer): ReturnType<typeof decodeRequest> | null {
    try {
      return decodeRequest(frame, this.handlers);
    } catch (err) {
      this.io.close(`malformed request during SASL authentication: ${(err as Error).message}`);
      return null;
    }
  }

  private handshakeOrVersions(frame: Buffer): Promise<void> | null {
    const initial = this.state === 'initial';
    if (initial) this.state = 'handshake-or-versions';
    const apiKey = frame.length >= 2 ? frame.readInt16BE(0) : -1;
    if (apiKey !== API_VERSIONS && apiKey !== SASL_HANDSHAKE) {
      // A first packet that is no Kafka request would be a GSSAPI token from a 0.9 client.
      const name = API_NAMES[apiKey as keyof typeof API_NAMES];
      this.io.close(name === undefined && initial
        ? 'Exception handling first SASL packet from client, GSSAPI is not supported by server'
        : `Unexpected Kafka request of type ${name === undefined ? apiKey : apiKeyName(name)} during SASL handshake.`);
      return null;
    }
    const decoded = this.decode(frame);
    if (decoded === null) return null;
    if (apiKey === API_VERSIONS) {
      if (this.state !== 'handshake-or-versions' || this.reauth !== null) {
        this.io.close(`Unexpected ApiVersions request received during SASL authentication state ${this.state === 'handshake' ? 'HANDSHAKE_REQUEST' : 'AUTHENTICATE'}`);
        return null;
      }
      if (decoded.kind === 'request' && isValidApiVersionsRequest(decoded.body as ApiVersionsRequest, decoded.header.apiVersion)) this.state = 'handshake';
      return this.io.serveRequest(frame);
    }
    if (decoded.kind !== 'request') {
      this.io.close(decoded.kind === 'refused' ? decoded.reason : 'unsupported SaslHandshake version');
      return null;
    }
    this.handshake(decoded.header, decoded.body as SaslHandshakeRequest);
    return null;
  }

  private handshake(header: RequestHeader, req: SaslHandshakeRequest): void {
    const mechanism = req.mechanism;
    this.headers = header.apiVersion >= 1;
    const response = (errorCode: number) => encodeResponse(header, { errorCode, mechanisms: [...this.sasl.mechanisms] });
    if (!this.sasl.mechanisms.includes(mechanism)) {
      this.io.failAndClose(response(ErrorCode.UNSUPPORTED_SASL_MECHANISM), `Unsupported SASL mechanism ${mechanism}`, this.sasl.failedAuthDelayMs);
      return;
    }
    this.io.write(response(ErrorCode.NONE));
    if (this.reauth !== null && mechanism !== this.reauth.mechanism) {
      this.reauth.badMechanismMessage = `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${this.reauth.mechanism}'`;
      this.state = 'reauth-bad-mechanism';
      return;
    }
    this.mechanism = mechanism;
    this.session = this.sasl.session(mechanism);
    this.state = 'authenticate';
  }

  /** SaslHandshake v0: the tokens are raw size-prefixed frames, and a failure cannot be reported. */
  private rawToken(frame: Buffer): void {
    let reply: Buffer;
    try {
      reply = this.session!.evaluate(frame);
    } catch (err) {
      this.io.close(`SASL authentication failed: ${(err as Error).message}`);
      return;
    }
    if (this.session!.complete && !this.complete()) return;
    const out = Buffer.alloc(4 + reply.length);
    out.writeInt32BE(reply.length, 0);
    reply.copy(out, 4);
    this.io.write(out);
  }

  private authenticateRequest(frame: Buffer): void {
    const decoded = this.decode(frame);
    if (decoded === null) return;
    if (decoded.kind !== 'request') {
      this.io.close(decoded.kind === 'refused' ? decoded.reason : 'unexpected request during SASL authentication');
      return;
    }
    const { header } = decoded;
    if (header.apiKey !== SASL_AUTHENTICATE) {
      const name = apiKeyName(decoded.api.name);
      const response = encodeResponse(header, decoded.api.errorResponse(decoded.body, header.apiVersion, ErrorCode.ILLEGAL_SASL_STATE));
      this.io.failAndClose(response, `Unexpected Kafka request of type ${name} during SASL authentication.`, this.sasl.failedAuthDelayMs);
      return;
    }
    const req = decoded.body as SaslAuthenticateRequest;
    const failed = (message: string, reason: string) => {
      const response = encodeResponse(header, { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n });
      this.io.failAndClose(response, reason, this.sasl.failedAuthDelayMs);
    };
    let reply: Buffer;
    try {
      reply = this.session!.evaluate(req.authBytes);
    } catch (err) {
      if (err instanceof SaslAuthenticationError) return failed(err.message, err.message);
      if (err instanceof SaslCredentialError) {
        return failed(`Authentication failed during ${this.reauth ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${this.mechanism}`, err.message);
      }
      this.io.close(`SASL authentication failed: ${(err as Error).message}`);
      return;
    }
    let lifetimeMs = 0;
    if (this.session!.complete) {
      const principal = userPrincipal(this.session!.authorizationId);
      if (this.reauth && this.reauth.principal.name !== principal.name) {
        const message = `Cannot change principals during re-authentication from User.${this.reauth.principal.name}: User.${principal.name}`;
        return failed(message, message);
      }
      lifetimeMs = this.sasl.reauthMs(this.mechanism);
      if (!this.complete(lifetimeMs)) return;
    }
    // Kafka leaves the message at its generated default, "" (not null), on success.
    this.io.write(encodeResponse(header, { errorCode: ErrorCode.NONE, errorMessage: '', authBytes: reply, sessionLifetimeMs: BigInt(lifetimeMs) }));
  }

  /** Ends a successful (re-)authentication; false when it must not be accepted. */
  private complete(lifetimeMs = this.sasl.reauthMs(this.mechanism)): boolean {
    const principal = userPrincipal(this.session!.authorizationId);
    if (this.reauth && this.reauth.principal.name !== principal.name) {
      this.io.close(`Cannot change principals during re-authentication from User.${this.reauth.principal.name}: User.${principal.name}`);
      return false;
    }
    const now = this.broker.time.now();
    this.sessionExpiresAt = lifetimeMs > 0 ? now + lifetimeMs : null;
    this.log.debug({ principal: `User:${principal.name}`, mechanism: this.mechanism, reauthentication: this.reauth !== null, sessionLifetimeMs: lifetimeMs }, 'SASL authentication complete');
    this.principalValue = principal;
    this.session = null;
    this.reauth = null;
    this.state = 'complete';
    return true;
  }
}

/** Kafka's `ApiKeys` enum name of an API (`OffsetCommit` -> `OFFSET_COMMIT`), as its messages print it. */
function apiKeyName(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}
