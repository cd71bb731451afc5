import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SecureVersion, TLSSocket, TlsOptions } from 'node:tls';
import { ConfigError, type BrokerConfig, type SecurityProtocol } from '../config.js';
import { rfc2253Subject, SslPrincipalMapper } from './ssl-principal.js';
import { ANONYMOUS, userPrincipal, type KafkaPrincipal } from './principal.js';
import { lazyModule } from '../util/lazy-module.js';

/** Node's TLS, loaded when a listener is SSL or SASL_SSL (util/lazy-module.ts): about 2 MiB of RSS otherwise spent. */
export const nodeTls = lazyModule<typeof import('node:tls')>('node:tls', 'SSL listeners');

export type ClientAuth = 'required' | 'requested' | 'none';

/** One SSL or SASL_SSL listener's TLS settings, resolved at start. */
export interface ListenerTls {
  /** For `tls.createServer` (key and chain or PKCS12, trusted CAs, client certificate request, versions). */
  readonly options: TlsOptions;
  readonly clientAuth: ClientAuth;
  /** `ssl.principal.mapping.rules` for client certificates. */
  readonly principalMapper: SslPrincipalMapper;
}

/** Kafka's `PemParser`: every `-----BEGIN <...>NAME-----` block, whatever precedes NAME (RSA, ENCRYPTED, ...). */
function pemBlocks(pem: string, name: string): Array<{ header: string; der: Buffer }> {
  const re = new RegExp(`-+BEGIN\\s*(.*?)${name.replace(' ', '\\s+')}[^-]*-+\\s+(?:\\s*[^\\r\\n]*:[^\\r\\n]*[\\r\\n]+)*([a-zA-Z0-9/+=\\s]*)-+END\\s*.*?${name.replace(' ', '\\s+')}[^-]*-+`, 'g');
  return [...`${pem}\n`.matchAll(re)].map((m) => ({ header: m[1]!.trim(), der: Buffer.from(m[2]!.replace(/\s/g, ''), 'base64') }));
}

function toPem(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/**
 * The TLS side of an SSL or SASL_SSL listener from Kafka's settings (each may be given per listener
 * as `listener.name.<l>.ssl...`), checked as Kafka's `DefaultSslEngineFactory` checks them:
 * - key store `ssl.keystore.type=PEM`: `ssl.keystore.location` (a file holding the PKCS#8 key,
 *   encrypted with `ssl.key.password` or not, and the certificate chain, in either order) or
 *   inline `ssl.keystore.key` + `ssl.keystore.certificate.chain`. A PKCS#1 (`BEGIN RSA PRIVATE KEY`)
 *   or SEC1 key is refused ("Private key could not be loaded"), as Java's PKCS8EncodedKeySpec refuses it.
 *   `ssl.keystore.type=PKCS12` with `ssl.keystore.password` is read by Node as is. JKS is not served.
 * - trust store `ssl.truststore.type=PEM`: `ssl.truststore.location` or inline `ssl.truststore.certificates`
 *   (only these CAs are trusted, as only the trust store is in Kafka).
 * - `ssl.client.auth` required / requested / none; for SASL_SSL only when set for the listener
 *   (`listener.name.<l>.ssl.client.auth`, KIP-684), else none.
 * - `ssl.enabled.protocols` (TLSv1.2, TLSv1.3) bounds the versions.
 * Failures are ConfigErrors naming the key, with Kafka's message where it has one.
 */
export function listenerTls(config: BrokerConfig, listener: string, protocol: SecurityProtocol): ListenerTls {
  const get = (key: string): string => config.forListener(listener, key) ?? '';
  const keyName = (key: string) => (config.listenerSetting(listener, key) !== undefined ? `listener.name.${listener.toLowerCase()}.${key}` : key);
  const options: TlsOptions = {};

  const keystoreType = get('ssl.keystore.type').toUpperCase();
  const location = get('ssl.keystore.location');
  const inlineKey = get('ssl.keystore.key');
  const inlineChain = get('ssl.keystore.certificate.chain');
  if (inlineKey !== '' && keystoreType !== 'PEM') throw new ConfigError(keyName('ssl.keystore.key'), `SSL private key can be specified only for PEM, but key store type is ${keystoreType}.`);
  if (keystoreType === 'PEM') {
    if (get('ssl.keystore.password') !== '') throw new ConfigError(keyName('ssl.keystore.password'), 'SSL key store password cannot be specified with PEM format, only key password may be specified.');
    let keyPem: string;
    let chainPem: string;
    if (inlineKey !== '' || inlineChain !== '') {
      keyPem = inlineKey;
      chainPem = inlineChain;
    } else if (location !== '') {
      try {
        keyPem = chainPem = readFileSync(location, 'utf8');
      } catch (err) {
        throw new ConfigError(keyName('ssl.keystore.location'), `Failed to load PEM SSL keystore ${location}: ${(err as Error).message}`);
      }
    } else {
      throw new ConfigError(keyName('ssl.keystore.location'), `listener ${listener} (${protocol}) needs a key store: ssl.keystore.location, or ssl.keystore.key and ssl.keystore.certificate.chain`);
    }
    const keyKey = keyName(inlineKey !== '' ? 'ssl.keystore.key' : 'ssl.keystore.location');
    const keys = pemBlocks(keyPem, 'PRIVATE KEY');
    if (keys.length === 0) throw new ConfigError(keyKey, 'Invalid PEM keystore configs: Private key not provided');
    if (keys.length !== 1) throw new ConfigError(keyKey, `Invalid PEM keystore configs: Expected one private key, but found ${keys.length}`);
    const password = get('ssl.key.password');
    try {
      const key = keys[0]!;
      const encrypted = key.header === 'ENCRYPTED';
      if (password !== '' && !encrypted) throw new Error('not an encrypted PKCS#8 key, but ssl.key.password is set');
      if (password === '' && encrypted) throw new Error('an encrypted key needs ssl.key.password');
      // Only PKCS#8 (`PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`), as Kafka's PKCS8EncodedKeySpec.
      if (!encrypted && key.header !== '') throw new Error(`a ${key.header} PRIVATE KEY is not PKCS#8`);
      const pem = toPem(encrypted ? 'ENCRYPTED PRIVATE KEY' : 'PRIVATE KEY', key.der);
      createPrivateKey(encrypted ? { key: pem, passphrase: password } : { key: pem });
      options.key = pem;
      if (encrypted) options.passphrase = password;
    } catch (err) {
      throw new ConfigError(keyKey, `Invalid PEM keystore configs: Private key could not be loaded (${(err as Error).message})`);
    }
    const certs = pemBlocks(chainPem, 'CERTIFICATE');
    if (certs.length === 0) throw new ConfigError(keyName(inlineChain !== '' ? 'ssl.keystore.certificate.chain' : 'ssl.keystore.location'), 'Invalid PEM keystore configs: At least one certificate expected, but none found');
    options.cert = certs.map((c) => toPem('CERTIFICATE', c.der)).join('');
  } else if (keystoreType === 'PKCS12') {
    if (location === '') throw new ConfigError(keyName('ssl.keystore.location'), `listener ${listener} (${protocol}) needs a key store: ssl.keystore.location`);
    try {
      options.pfx = readFileSync(location);
    } catch (err) {
      throw new ConfigError(keyName('ssl.keystore.location'), `Failed to load SSL keystore ${location} of type PKCS12: ${(err as Error).message}`);
    }
    options.passphrase = get('ssl.keystore.password');
  } else {
    throw new ConfigError(keyName('ssl.keystore.type'), `key store type ${keystoreType} is not supported here (PEM or PKCS12)`);
  }

  const truststoreType = get('ssl.truststore.type').toUpperCase();
  const trustInline = get('ssl.truststore.certificates');
  const trustLocation = get('ssl.truststore.location');
  if (trustInline !== '' && truststoreType !== 'PEM') throw new ConfigError(keyName('ssl.truststore.certificates'), `SSL trust store certs can be specified only for PEM, but trust store type is ${truststoreType}.`);
  if (trustInline !== '' || trustLocation !== '') {
    if (truststoreType !== 'PEM') throw new ConfigError(keyName('ssl.truststore.type'), `trust store type ${truststoreType} is not supported here (PEM)`);
    if (get('ssl.truststore.password') !== '') throw new ConfigError(keyName('ssl.truststore.password'), 'SSL trust store password cannot be specified for PEM format.');
    let text: string;
    try {
      text = trustInline !== '' ? trustInline : readFileSync(trustLocation, 'utf8');
    } catch (err) {
      throw new ConfigError(keyName('ssl.truststore.location'), `Failed to load PEM SSL truststore ${trustLocation}: ${(err as Error).message}`);
    }
    const cas = pemBlocks(text, 'CERTIFICATE');
    if (cas.length === 0) throw new ConfigError(keyName(trustInline !== '' ? 'ssl.truststore.certificates' : 'ssl.truststore.location'), 'Invalid PEM truststore configs: At least one certificate expected, but none found');
    options.ca = cas.map((c) => toPem('CERTIFICATE', c.der));
  }

  const clientAuthText = protocol === 'SASL_SSL' ? config.listenerSetting(listener, 'ssl.client.auth') ?? 'none' : get('ssl.client.auth');
  if (clientAuthText !== 'required' && clientAuthText !== 'requested' && clientAuthText !== 'none') {
    throw new ConfigError(keyName('ssl.client.auth'), `expected one of required, requested, none, got "${clientAuthText}"`);
  }
  const clientAuth: ClientAuth = clientAuthText;
  options.requestCert = clientAuth !== 'none';
  // With `requested`, a certificate that does not verify is refused after the handshake (JSSE refuses it in it).
  options.rejectUnauthorized = clientAuth === 'required';

  const versions = get('ssl.enabled.protocols').split(',').map((v) => v.trim()).filter((v): v is SecureVersion => v === 'TLSv1.2' || v === 'TLSv1.3');
  if (versions.length === 0) throw new ConfigError(keyName('ssl.enabled.protocols'), `no protocol served here in "${get('ssl.enabled.protocols')}" (TLSv1.2, TLSv1.3)`);
  options.minVersion = versions.includes('TLSv1.2') ? 'TLSv1.2' : 'TLSv1.3';
  options.maxVersion = versions.includes('TLSv1.3') ? 'TLSv1.3' : 'TLSv1.2';

  const { createSecureContext } = nodeTls();
  try {
    createSecureContext(options);
  } catch (err) {
    throw new ConfigError(keyName(keystoreType === 'PKCS12' ? 'ssl.keystore.password' : 'ssl.keystore.location'), `Failed to load SSL keystore for listener ${listener}: ${(err as Error).message}`);
  }
  return { options, clientAuth, principalMapper: new SslPrincipalMapper(get('ssl.principal.mapping.rules'), keyName('ssl.principal.mapping.rules')) };
}

/**
 * Who a TLS client is, as Kafka's `DefaultKafkaPrincipalBuilder` names it: `User:<mapped DN>` for a
 * verified client certificate (its RFC 2253 subject through `ssl.principal.mapping.rules`),
 * `User:ANONYMOUS` without one. Null refuses the connection: a certificate that did not verify
 * (`ssl.client.auth=requested`), or no mapping rule that applies (Kafka's `NoMatchingRule`).
 */
export function peerPrincipal(socket: TLSSocket, tls: ListenerTls): { principal: KafkaPrincipal } | { refused: string } {
  if (tls.clientAuth === 'none') return { principal: ANONYMOUS };
  const cert = socket.getPeerX509Certificate();
  if (cert === undefined) return { principal: ANONYMOUS };
  if (!socket.authorized) return { refused: `client certificate not trusted: ${String(socket.authorizationError)}` };
  const dn = rfc2253Subject(cert);
  const name = tls.principalMapper.name(dn);
  return name === null ? { refused: `No rules apply to ${dn}` } : { principal: userPrincipal(name) };
}
