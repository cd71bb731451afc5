import type { BrokerConfig } from '../config.js';
import type { ListenerSpec } from './listeners.js';
import { saslListenerConfig, type SaslListenerConfig } from '../security/sasl/listener-sasl.js';
import type { ScramCredentialStore } from '../security/scram-store.js';
import { listenerTls, type ListenerTls } from '../security/tls.js';

/** What one listener does with its connections: its configuration, TLS on SSL and SASL_SSL, SASL on SASL_*. */
export interface ListenerContext {
  readonly spec: ListenerSpec;
  /** SSL and SASL_SSL listeners: key, trusted CAs, client authentication; null otherwise. */
  readonly tls: ListenerTls | null;
  /** SASL_PLAINTEXT and SASL_SSL listeners: the mechanisms and their users; null otherwise. */
  readonly sasl: SaslListenerConfig | null;
}

/** Resolves a listener's security settings at start (a ConfigError names what Kafka would refuse). */
export function listenerContext(spec: ListenerSpec, config: BrokerConfig, scram: ScramCredentialStore): ListenerContext {
  const sasl = spec.securityProtocol === 'SASL_PLAINTEXT' || spec.securityProtocol === 'SASL_SSL' ? saslListenerConfig(config, spec.name, scram) : null;
  const tls = spec.securityProtocol === 'SSL' || spec.securityProtocol === 'SASL_SSL' ? listenerTls(config, spec.name, spec.securityProtocol) : null;
  return { spec, tls, sasl };
}
