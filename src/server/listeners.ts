import { ConfigError, SECURITY_PROTOCOLS, parseListenerList, type BrokerConfig, type Listener, type SecurityProtocol } from '../config.js';

/** One listener this broker opens, as Kafka 4.3's `KafkaConfig` resolves `listeners` and friends. */
export interface ListenerSpec {
  /** Upper case, as `ListenerName.normalised`. */
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
  /** Bind address ('' = every interface). */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** What Metadata and FindCoordinator tell clients who connected here; null: the bound address. */
  readonly advertised: { readonly host: string; readonly port: number } | null;
}

/**
 * `listener.security.protocol.map` (`NAME:PROTOCOL,...`), as Kafka's `KafkaConfig.effectiveListenerSecurityProtocolMap`:
 * names in upper case, each protocol one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL.
 */
export function parseSecurityProtocolMap(text: string): Map<string, SecurityProtocol> {
  const out = new Map<string, SecurityProtocol>();
  for (const entry of text.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const colon = entry.indexOf(':');
    const name = entry.slice(0, colon).trim().toUpperCase();
    const protocol = entry.slice(colon + 1).trim().toUpperCase();
    if (colon <= 0 || name === '') throw new ConfigError('listener.security.protocol.map', `expected NAME:PROTOCOL, got "${entry}"`);
    if (!(SECURITY_PROTOCOLS as readonly string[]).includes(protocol)) {
      throw new ConfigError('listener.security.protocol.map', `No enum constant org.apache.kafka.common.security.auth.SecurityProtocol.${protocol} (for listener ${name}; one of ${SECURITY_PROTOCOLS.join(', ')})`);
    }
    if (out.has(name)) throw new ConfigError('listener.security.protocol.map', `Duplicate key ${name}`);
    out.set(name, protocol as SecurityProtocol);
  }
  return out;
}

/**
 * The listeners to open, from `listeners`, `advertised.listeners`, `listener.security.protocol.map`
 * and `controller.listener.names`, checked as Kafka 4.3 checks them (`KafkaConfig.validateValues`,
 * `CoreUtils.listenerListToEndPoints`), with Kafka's messages:
 * - every name needs a security protocol ("No security protocol defined for listener X");
 * - ports differ, except 0 ("Each listener must have a different port");
 * - advertised names are a subset of the listeners, and none advertises 0.0.0.0;
 * - listeners named in `controller.listener.names` are not opened (there is no KRaft controller
 *   here), and at least one other must remain ("There must be at least one broker advertised listener.").
 * A listener that `advertised.listeners` leaves out advertises its bound address (Kafka would
 * advertise nothing for it, so its clients would find no broker: see DIFFERENCES.md).
 */
export function resolveListeners(config: BrokerConfig): ListenerSpec[] {
  const text = config.string('listeners');
  const protocols = parseSecurityProtocolMap(config.string('listener.security.protocol.map'));
  const all = parseListenerList('listeners', text);
  for (const l of all) {
    if (!protocols.has(l.name)) throw new ConfigError('listeners', `No security protocol defined for listener ${l.name}`);
  }
  const ports = all.filter((l) => l.port !== 0).map((l) => l.port);
  if (new Set(ports).size !== ports.length) throw new ConfigError('listeners', `Each listener must have a different port, listeners: ${text}`);
  const controllerNames = new Set(config.string('controller.listener.names').split(',').map((n) => n.trim().toUpperCase()).filter((n) => n !== ''));
  const brokerListeners = all.filter((l) => !controllerNames.has(l.name));
  if (brokerListeners.length === 0) {
    throw new ConfigError('listeners', 'There must be at least one broker advertised listener. Perhaps all listeners appear in controller.listener.names?');
  }

  const advertisedText = config.string('advertised.listeners');
  const advertised = new Map<string, Listener>();
  if (advertisedText !== '') {
    for (const a of parseListenerList('advertised.listeners', advertisedText)) {
      if (!protocols.has(a.name)) throw new ConfigError('advertised.listeners', `No security protocol defined for listener ${a.name}`);
      if (controllerNames.has(a.name)) continue;
      if (!all.some((l) => l.name === a.name)) {
        throw new ConfigError(
          'advertised.listeners',
          `advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found ${a.name}. The valid options based on the current configuration are ${all.map((l) => l.name).join(',')}`,
        );
      }
      if (a.host === '0.0.0.0') throw new ConfigError('advertised.listeners', 'advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address.');
      advertised.set(a.name, a);
    }
  }
  return brokerListeners.map((l) => {
    const a = advertised.get(l.name);
    return { name: l.name, securityProtocol: protocols.get(l.name)!, host: l.host, port: l.port, advertised: a ? { host: a.host, port: a.port } : null };
  });
}

/**
 * `listeners` with the first listener's host and/or port replaced (`--host`, `--port`), the
 * others kept; the Kafka default `PLAINTEXT://:9092` when none is configured.
 */
export function withFirstListenerAddress(listeners: string | undefined, host: string | undefined, port: number | undefined): string {
  const list = parseListenerList('listeners', listeners ?? 'PLAINTEXT://:9092');
  const [first, ...rest] = list;
  const replaced = { ...first!, host: host ?? first!.host, port: port ?? first!.port };
  return [replaced, ...rest].map(formatListener).join(',');
}

/** `advertised.listeners` with the entry of `name` set to `hostPort` (`--advertised-listener`), the others kept. */
export function withAdvertisedAddress(advertised: string | undefined, name: string, hostPort: string): string {
  const entry = `${name}://${hostPort}`;
  const [parsed] = parseListenerList('--advertised-listener', entry);
  const others = advertised ? parseListenerList('advertised.listeners', advertised).filter((a) => a.name !== parsed!.name) : [];
  return [parsed!, ...others].map(formatListener).join(',');
}

function formatListener(l: Listener): string {
  return `${l.name}://${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`;
}
