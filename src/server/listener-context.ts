import type { ListenerSpec } from './listeners.js';

/** What one listener does with its connections: its configuration and, once security is on, TLS and SASL. */
export interface ListenerContext {
  readonly spec: ListenerSpec;
}
