/**
 * Who sent a request, as Kafka's `KafkaPrincipal`: a type and a name, written `User:alice`.
 * PLAINTEXT connections, and SSL ones without a client certificate, are `User:ANONYMOUS`
 * (`KafkaPrincipal.ANONYMOUS`); SASL ones are the authenticated user; SSL ones with a client
 * certificate are the mapped distinguished name (src/security/tls-principal.ts).
 */
export interface KafkaPrincipal {
  readonly principalType: string;
  readonly name: string;
}

export const ANONYMOUS: KafkaPrincipal = Object.freeze({ principalType: 'User', name: 'ANONYMOUS' });

/** `User:alice` (Kafka's `KafkaPrincipal.toString()`). */
export function principalString(p: KafkaPrincipal): string {
  return `${p.principalType}:${p.name}`;
}

/**
 * Parses `Type:name` as Kafka's `SecurityUtils.parseKafkaPrincipal`: the type is what precedes the
 * first colon, the name the rest (either may be empty); null without a colon.
 */
export function parsePrincipal(text: string): KafkaPrincipal | null {
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  return { principalType: text.slice(0, colon), name: text.slice(colon + 1) };
}

export function userPrincipal(name: string): KafkaPrincipal {
  return { principalType: 'User', name };
}
