import type { Logger } from 'pino';
import type { Broker } from '../broker.js';

/** What a handler knows about the request it serves. */
export interface RequestContext {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** Client id from the request header ("" when null). */
  readonly clientId: string;
  /** Remote address as Kafka reports it in member metadata: "/127.0.0.1". */
  readonly clientHost: string;
  readonly connectionId: string;
  readonly broker: Broker;
  /**
   * The simulated broker (`--brokers N`) whose listener received the request; absent means
   * `broker.nodeId` (the first one). Read it through `brokerIdOf(ctx)`.
   */
  readonly brokerId?: number;
  readonly log: Logger;
}

/** The id of the broker serving this request (see `RequestContext.brokerId`). */
export function brokerIdOf(ctx: Pick<RequestContext, 'broker' | 'brokerId'>): number {
  return ctx.brokerId ?? ctx.broker.nodeId;
}

/** Returned by a handler that must not answer (Produce with acks=0). */
export const NO_RESPONSE = Symbol('no response');

/**
 * One Kafka API served by this broker. `advertisedMinVersion` may be lower than
 * `minVersion` where Kafka 4.3 advertises versions it refuses (Produce v0-2): such
 * requests close the connection, as they do on a 4.3 broker.
 */
export interface ApiDefinition<Req = any, Res = any> {
  readonly apiKey: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly advertisedMinVersion?: number;
  handle(request: Req, ctx: RequestContext): Res | typeof NO_RESPONSE | Promise<Res | typeof NO_RESPONSE>;
}
