import { ConfigError, type BrokerConfig } from '../../config.js';
import { javaHashSetOrder } from '../../util/java-hash.js';
import { JaasConfigError, parseServerJaasConfig, type JaasEntry } from './jaas.js';
import type { SaslServerSession } from './mechanism.js';
import { PlainServer, plainUsers } from './plain.js';
import { ScramServer } from './scram.js';
import { scramMechanism } from './scram-formatter.js';
import type { ScramCredentialStore } from '../scram-store.js';

const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
/**
 * Login modules a Kafka broker finds on its class path without plug-ins: Kafka's own and the
 * JDK's. Any other class makes Kafka's start fail in `LoginContext.login` ("No LoginModule found
 * for ..."); a plug-in's class cannot be run here, so it is refused the same way.
 */
const KNOWN_LOGIN_MODULE = /^(?:org\.apache\.kafka\.common\.security\.(?:plain\.PlainLoginModule|scram\.ScramLoginModule|oauthbearer\.OAuthBearerLoginModule)|com\.sun\.security\.auth\.module\.\w+LoginModule)$/;
/** The mechanisms served here. */
export const SUPPORTED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

/** One SASL listener's settings, resolved at start. */
export interface SaslListenerConfig {
  /** `sasl.enabled.mechanisms` in the order Kafka reports them (its `HashSet` order). */
  readonly mechanisms: readonly string[];
  /** A fresh server session for `mechanism` (one of `mechanisms`). */
  session(mechanism: string): SaslServerSession;
  /** `connections.max.reauth.ms` for the mechanism (0: no re-authentication, sessions never expire). */
  reauthMs(mechanism: string): number;
  /** `connection.failed.authentication.delay.ms`. */
  readonly failedAuthDelayMs: number;
}

/**
 * Resolves a SASL listener's mechanisms as Kafka 4.3 starts them (`SaslChannelBuilder`,
 * `JaasContext.loadServerContext`): `sasl.enabled.mechanisms` (per listener:
 * `listener.name.<l>.sasl.enabled.mechanisms`), and for each one its own
 * `listener.name.<l>.<mechanism>.sasl.jaas.config`, without which Kafka refuses to start. PLAIN's
 * users are the `user_<name>` options of a `PlainLoginModule`; SCRAM users live in `scram`
 * (AlterUserScramCredentials). GSSAPI and OAUTHBEARER are not served: a listener enabling them is
 * refused at start.
 */
export function saslListenerConfig(config: BrokerConfig, listener: string, scram: ScramCredentialStore): SaslListenerConfig {
  const mechanismsKey = config.listenerSetting(listener, 'sasl.enabled.mechanisms') !== undefined ? `listener.name.${listener.toLowerCase()}.sasl.enabled.mechanisms` : 'sasl.enabled.mechanisms';
  const enabled = (config.forListener(listener, 'sasl.enabled.mechanisms') ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (enabled.length === 0) throw new ConfigError(mechanismsKey, `No SASL mechanisms are enabled for listener ${listener}`);
  const factories = new Map<string, () => SaslServerSession>();
  for (const mechanism of enabled) {
    if (!(SUPPORTED_MECHANISMS as readonly string[]).includes(mechanism)) {
      throw new ConfigError(mechanismsKey, `SASL mechanism ${mechanism} is not supported here (listener ${listener}; supported: ${SUPPORTED_MECHANISMS.join(', ')})`);
    }
    const jaasKey = `listener.name.${listener.toLowerCase()}.${mechanism.toLowerCase()}.sasl.jaas.config`;
    const text = config.listenerSetting(listener, 'sasl.jaas.config', mechanism);
    if (text === undefined) {
      throw new ConfigError(
        jaasKey,
        `Could not find a 'KafkaServer' or '${listener.toLowerCase()}.KafkaServer' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set (set ${jaasKey})`,
      );
    }
    let entry: JaasEntry;
    try {
      entry = parseServerJaasConfig(text);
    } catch (err) {
      if (err instanceof JaasConfigError) throw new ConfigError(jaasKey, err.message);
      throw err;
    }
    if (!KNOWN_LOGIN_MODULE.test(entry.loginModule)) throw new ConfigError(jaasKey, `No LoginModule found for ${entry.loginModule}`);
    const info = scramMechanism(mechanism);
    if (info) {
      factories.set(mechanism, () => new ScramServer(info, (user) => scram.get(user, mechanism)));
    } else {
      // PlainServerCallbackHandler reads `user_*` options of PlainLoginModule entries only.
      const users = entry.loginModule === PLAIN_LOGIN_MODULE ? plainUsers(entry.options) : new Map<string, string>();
      factories.set(mechanism, () => new PlainServer(users));
    }
  }
  const reauth = new Map(enabled.map((m) => [m, Number(config.forListener(listener, 'connections.max.reauth.ms', m) ?? '0')]));
  return {
    mechanisms: javaHashSetOrder(enabled),
    session: (mechanism) => factories.get(mechanism)!(),
    reauthMs: (mechanism) => reauth.get(mechanism) ?? 0,
    failedAuthDelayMs: Number(config.forListener(listener, 'connection.failed.authentication.delay.ms') ?? '100'),
  };
}
