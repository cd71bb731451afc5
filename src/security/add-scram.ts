import { ConfigError } from '../config.js';
import { credentialFromSaltedPassword, saltedPassword, scramMechanism, secureRandomString, type ScramCredential, type ScramMechanismInfo } from './sasl/scram-formatter.js';

/** One `--add-scram` credential, ready for the store. */
export interface AddScram {
  readonly user: string;
  readonly mechanism: ScramMechanismInfo;
  readonly credential: ScramCredential;
}

/**
 * Parses `SCRAM-SHA-256=[name=alice,password=alice-secret]` as Kafka's `kafka-storage format
 * --add-scram` does (`ScramParser`): `name`, and `password` or `salt` + `saltedpassword` (base64),
 * optionally `iterations` (default 4096, from 4096 to 16384) and `salt`; a value may be in double
 * quotes. Throws ConfigError (key `--add-scram`) with Kafka's message.
 */
export function parseAddScram(input: string): AddScram {
  const fail = (message: string): never => {
    throw new ConfigError('--add-scram', message);
  };
  const text = input.trim();
  const eq = text.indexOf('=');
  if (eq < 0) fail(`Failed to find equals sign in SCRAM argument '${text}'`);
  const mechanismName = text.slice(0, eq);
  const body = text.slice(eq + 1);
  const mechanism = scramMechanism(mechanismName) ?? fail(`The add-scram mechanism ${mechanismName} is not supported.`);
  if (!body.startsWith('[')) fail('Expected configuration string to start with [');
  if (!body.endsWith(']')) fail('Expected configuration string to end with ]');
  const components = new Map<string, string>();
  for (const part of body.slice(1, -1).split(',')) {
    const i = part.indexOf('=');
    if (i < 0) fail(`No equals sign found in SCRAM component: ${part}`);
    let value = part.slice(i + 1);
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    components.set(part.slice(0, i), value);
  }
  const take = (key: string): string | undefined => {
    const v = components.get(key);
    components.delete(key);
    return v;
  };
  const user = take('name') ?? fail("You must supply 'name' to add-scram");
  const saltText = take('salt');
  const iterationsText = take('iterations');
  const password = take('password');
  const saltedText = take('saltedpassword');
  if (password === undefined && saltedText === undefined) fail("You must supply one of 'password' or 'saltedpassword' to add-scram");
  if (password === undefined && saltText === undefined) fail("You must supply 'salt' with 'saltedpassword' to add-scram");
  if (components.size > 0) fail(`Unknown SCRAM configurations: ${[...components.keys()].sort().join(', ')}`);
  const iterations = iterationsText === undefined ? 4096 : /^-?\d+$/.test(iterationsText) ? Number(iterationsText) : fail(`Failed to parse iterations count: ${iterationsText}`);
  if (iterations < mechanism.minIterations) fail(`The 'iterations' value must be >= ${mechanism.minIterations} for add-scram using ${mechanism.name.replace(/-/g, '_')}`);
  if (iterations > mechanism.maxIterations) fail(`The 'iterations' value must be <= ${mechanism.maxIterations} for add-scram using ${mechanism.name.replace(/-/g, '_')}`);
  const salt = saltText === undefined ? Buffer.from(secureRandomString(), 'utf8') : Buffer.from(saltText, 'base64');
  const salted = password !== undefined ? saltedPassword(mechanism, password, salt, iterations) : Buffer.from(saltedText!, 'base64');
  return { user, mechanism, credential: credentialFromSaltedPassword(mechanism, salt, salted, iterations) };
}
