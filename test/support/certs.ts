/**
 * Test certificates, made at test time with the `openssl` command line (Node's crypto cannot sign
 * certificates) in a fresh temporary directory: a CA, a server certificate for localhost and
 * 127.0.0.1, a client certificate, and an untrusted CA with its own server and client
 * certificates. Private keys never leave the temporary directory. EC P-256 keys (fast to make),
 * PKCS#8 as Kafka wants them; `rsaPkcs1Key` is the PKCS#1 form Kafka refuses.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCerts {
  dir: string;
  /** The trusted CA certificate (PEM). */
  caCert: string;
  caCertPath: string;
  /** Server key (PKCS#8) and certificate, and a PEM file holding both (`ssl.keystore.location`). */
  serverKey: string;
  serverCert: string;
  serverKeystorePath: string;
  /** The server key encrypted with `keyPassword` (PKCS#8), in a keystore file with the certificate. */
  encryptedServerKeystorePath: string;
  keyPassword: string;
  /** PKCS12 keystore of the server key and certificate, password `keyPassword`. */
  serverP12Path: string;
  /** An RSA key in PKCS#1 (`BEGIN RSA PRIVATE KEY`) with its certificate. */
  rsaPkcs1KeystorePath: string;
  /** Client key and certificate (`CN=client,OU=kmc-test,O=kmc`), signed by the CA. */
  clientKey: string;
  clientCert: string;
  clientKeyPath: string;
  clientCertPath: string;
  /** The client key and certificate in one PEM file (a Java client's `ssl.keystore.location` with `ssl.keystore.type=PEM`). */
  clientKeystorePath: string;
  /** The same for the untrusted client certificate. */
  rogueClientKeystorePath: string;
  /** A CA nobody trusts, with a client certificate and a server keystore of its own. */
  rogueCaCert: string;
  rogueCaCertPath: string;
  rogueClientKey: string;
  rogueClientCert: string;
  rogueServerKeystorePath: string;
  remove(): void;
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

async function ecKey(dir: string, name: string): Promise<void> {
  await openssl(dir, 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`);
}

async function ca(dir: string, name: string, subject: string): Promise<void> {
  await ecKey(dir, name);
  await openssl(dir, 'req', '-x509', '-new', '-key', `${name}.key`, '-days', '2', '-subj', subject, '-out', `${name}.crt`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
}

async function signed(dir: string, name: string, caName: string, subject: string, ext: string, keyAlreadyThere = false): Promise<void> {
  if (!keyAlreadyThere) await ecKey(dir, name);
  await openssl(dir, 'req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
  writeFileSync(join(dir, `${name}.ext`), ext);
  await openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.crt`, '-CAkey', `${caName}.key`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`);
}

const SERVER_EXT = 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n';
const CLIENT_EXT = 'extendedKeyUsage=clientAuth\n';

export async function makeTestCerts(): Promise<TestCerts> {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-certs-'));
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  await ca(dir, 'ca', '/O=kmc/CN=kmc test CA');
  await ca(dir, 'rogue-ca', '/O=rogue/CN=rogue CA');
  await signed(dir, 'server', 'ca', '/O=kmc/CN=localhost', SERVER_EXT);
  await signed(dir, 'client', 'ca', '/O=kmc/OU=kmc-test/CN=client', CLIENT_EXT);
  await signed(dir, 'rogue-client', 'rogue-ca', '/O=rogue/CN=intruder', CLIENT_EXT);
  await signed(dir, 'rogue-server', 'rogue-ca', '/O=rogue/CN=localhost', SERVER_EXT);
  await openssl(dir, 'genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'rsa.key');
  await signed(dir, 'rsa', 'ca', '/O=kmc/CN=localhost', SERVER_EXT, true);
  await openssl(dir, 'pkey', '-in', 'rsa.key', '-traditional', '-out', 'rsa-pkcs1.key');
  const keyPassword = 'key-secret';
  await openssl(dir, 'pkcs8', '-topk8', '-in', 'server.key', '-v2', 'aes-256-cbc', '-passout', `pass:${keyPassword}`, '-out', 'server-encrypted.key');
  await openssl(dir, 'pkcs12', '-export', '-inkey', 'server.key', '-in', 'server.crt', '-passout', `pass:${keyPassword}`, '-out', 'server.p12');
  // Key and chain in either order: the certificate first here, the key first in the others.
  writeFileSync(join(dir, 'server-keystore.pem'), read('server.crt') + read('server.key'));
  writeFileSync(join(dir, 'server-encrypted-keystore.pem'), read('server-encrypted.key') + read('server.crt'));
  writeFileSync(join(dir, 'rsa-pkcs1-keystore.pem'), read('rsa-pkcs1.key') + read('rsa.crt'));
  writeFileSync(join(dir, 'rogue-server-keystore.pem'), read('rogue-server.key') + read('rogue-server.crt'));
  writeFileSync(join(dir, 'client-keystore.pem'), read('client.key') + read('client.crt'));
  writeFileSync(join(dir, 'rogue-client-keystore.pem'), read('rogue-client.key') + read('rogue-client.crt'));
  return {
    dir,
    caCert: read('ca.crt'),
    caCertPath: join(dir, 'ca.crt'),
    serverKey: read('server.key'),
    serverCert: read('server.crt'),
    serverKeystorePath: join(dir, 'server-keystore.pem'),
    encryptedServerKeystorePath: join(dir, 'server-encrypted-keystore.pem'),
    keyPassword,
    serverP12Path: join(dir, 'server.p12'),
    rsaPkcs1KeystorePath: join(dir, 'rsa-pkcs1-keystore.pem'),
    clientKey: read('client.key'),
    clientCert: read('client.crt'),
    clientKeyPath: join(dir, 'client.key'),
    clientCertPath: join(dir, 'client.crt'),
    clientKeystorePath: join(dir, 'client-keystore.pem'),
    rogueClientKeystorePath: join(dir, 'rogue-client-keystore.pem'),
    rogueCaCert: read('rogue-ca.crt'),
    rogueCaCertPath: join(dir, 'rogue-ca.crt'),
    rogueClientKey: read('rogue-client.key'),
    rogueClientCert: read('rogue-client.crt'),
    rogueServerKeystorePath: join(dir, 'rogue-server-keystore.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
