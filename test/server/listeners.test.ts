import { describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../src/config.js';
import { resolveListeners, withAdvertisedAddress, withFirstListenerAddress } from '../../src/server/listeners.js';

const resolve = (config: Record<string, string>) => resolveListeners(new BrokerConfig(config));

describe('listeners (KafkaConfig rules)', () => {
  it('resolves several listeners with their security protocols and advertised addresses', () => {
    expect(resolve({
      listeners: 'INTERNAL://0.0.0.0:9092,external://127.0.0.1:9094,CONTROLLER://:9093',
      'advertised.listeners': 'INTERNAL://kmc:9092,EXTERNAL://localhost:19094',
      'listener.security.protocol.map': 'INTERNAL:PLAINTEXT,EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT',
      'controller.listener.names': 'CONTROLLER',
    })).toEqual([
      { name: 'INTERNAL', securityProtocol: 'PLAINTEXT', host: '0.0.0.0', port: 9092, advertised: { host: 'kmc', port: 9092 } },
      { name: 'EXTERNAL', securityProtocol: 'SASL_SSL', host: '127.0.0.1', port: 9094, advertised: { host: 'localhost', port: 19094 } },
    ]);
  });

  it('maps the four protocol names to themselves by default; an IPv6 host is bracketed', () => {
    expect(resolve({ listeners: 'PLAINTEXT://:9092,SASL_PLAINTEXT://[::1]:9093,SSL://localhost:0,SASL_SSL://localhost:0' }).map((l) => [l.name, l.securityProtocol, l.host, l.port]))
      .toEqual([['PLAINTEXT', 'PLAINTEXT', '', 9092], ['SASL_PLAINTEXT', 'SASL_PLAINTEXT', '::1', 9093], ['SSL', 'SSL', 'localhost', 0], ['SASL_SSL', 'SASL_SSL', 'localhost', 0]]);
  });

  it("refuses what Kafka refuses, with Kafka's messages", () => {
    expect(() => resolve({ listeners: 'CLIENT://:9092' })).toThrow('invalid config listeners: No security protocol defined for listener CLIENT');
    expect(() => resolve({ listeners: 'PLAINTEXT://:9092,SSL://:9092' })).toThrow('Each listener must have a different port, listeners: PLAINTEXT://:9092,SSL://:9092');
    expect(() => resolve({ listeners: 'PLAINTEXT://:9092,plaintext://:9093' })).toThrow('Each listener must have a different name');
    expect(() => resolve({ listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'SSL://x:9093' })).toThrow(
      'advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found SSL.',
    );
    expect(() => resolve({ listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' })).toThrow('cannot use the nonroutable meta-address 0.0.0.0');
    expect(() => resolve({ listeners: 'CONTROLLER://:9093', 'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT', 'controller.listener.names': 'CONTROLLER' }))
      .toThrow('There must be at least one broker advertised listener.');
    expect(() => resolve({ listeners: 'A://:1', 'listener.security.protocol.map': 'A:TLS' })).toThrow('listener.security.protocol.map');
    expect(() => resolve({ listeners: 'PLAINTEXT://host' })).toThrow('expected NAME://host:port, got "PLAINTEXT://host"');
    expect(() => resolve({ listeners: 'PLAINTEXT://:0,SSL://:0' })).not.toThrow();
  });

  it('--host/--port replace the first listener only; --advertised-listener its advertised entry', () => {
    expect(withFirstListenerAddress(undefined, undefined, 0)).toBe('PLAINTEXT://:0');
    expect(withFirstListenerAddress('INTERNAL://0.0.0.0:9092,SASL_SSL://:9094', '127.0.0.1', 19092)).toBe('INTERNAL://127.0.0.1:19092,SASL_SSL://:9094');
    expect(withFirstListenerAddress('PLAINTEXT://:9092', '::1', undefined)).toBe('PLAINTEXT://[::1]:9092');
    expect(withAdvertisedAddress(undefined, 'PLAINTEXT', 'kmc:9092')).toBe('PLAINTEXT://kmc:9092');
    expect(withAdvertisedAddress('SSL://a:1,PLAINTEXT://b:2', 'PLAINTEXT', 'kmc:9092')).toBe('PLAINTEXT://kmc:9092,SSL://a:1');
  });
});
