import { join } from 'node:path';
import { ConfigError, type BrokerConfig } from '../../config.js';
import { readJsonFile, writeJsonFile } from '../json-file.js';
import { principalString, type KafkaPrincipal } from '../principal.js';
import { AclOperation, AclPermissionType, PatternType, SUPPORTED_OPERATIONS, WILDCARD, filterMatches, sameBinding, type AclBinding, type AclBindingFilter } from './acl-types.js';

/** The one authorizer Kafka 4.3 ships for KRaft, and what `authorizer.class.name` must name to turn ACLs on. */
export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
/** The file under the data directory that holds the ACLs (ours: Kafka keeps them in its metadata log). */
export const ACLS_FILE = 'acls.json';

/** Who asks, from where: a request's principal and client address (as Java's `InetAddress.getHostAddress()` prints it). */
export interface Requester {
  readonly principal: KafkaPrincipal;
  readonly host: string;
}

/** ALLOW ACLs for these operations also allow DESCRIBE (`StandardAuthorizerData.IMPLIES_DESCRIBE`). */
const IMPLIES_DESCRIBE = new Set<number>([AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]);
/** ... and DESCRIBE_CONFIGS (`IMPLIES_DESCRIBE_CONFIGS`). */
const IMPLIES_DESCRIBE_CONFIGS = new Set<number>([AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]);

/**
 * Kafka 4.3's `StandardAuthorizer` (`StandardAuthorizerData`): `super.users` may do anything; else
 * the ACLs on the resource (literal on its name, prefixed on a prefix of it, literal `*`) decide:
 * a matching DENY wins, then a matching ALLOW (an ALLOW for READ, WRITE, DELETE or ALTER also
 * allows DESCRIBE; for ALTER_CONFIGS, DESCRIBE_CONFIGS; ALL allows everything); if the resource has
 * ACLs but none matches the principal (or `User:*`), host (or `*`) and operation, it is denied; if
 * it has none, `allow.everyone.if.no.acl.found` decides (default false). ACLs are kept in
 * `<data-dir>/acls.json`, replaced whole on every change (Kafka writes them to its metadata log).
 */
export class StandardAuthorizer {
  private acls: AclBinding[] = [];
  private readonly superUsers: ReadonlySet<string>;
  private readonly allowIfNoAcl: boolean;
  private readonly path: string | null;

  constructor(config: BrokerConfig, dataDir: string | null) {
    this.superUsers = new Set(config.string('super.users').split(';').map((s) => s.trim()).filter((s) => s !== ''));
    this.allowIfNoAcl = config.bool('allow.everyone.if.no.acl.found');
    this.path = dataDir === null ? null : join(dataDir, ACLS_FILE);
    const doc = this.path === null ? undefined : readJsonFile(this.path);
    this.acls = ((doc as { acls?: AclBinding[] } | undefined)?.acls ?? []).map((a) => ({ ...a }));
  }

  /** The authorizer `authorizer.class.name` asks for, or null (no authorization, Kafka's default). */
  static fromConfig(config: BrokerConfig, dataDir: string | null): StandardAuthorizer | null {
    const name = config.string('authorizer.class.name').trim();
    if (name === '') return null;
    if (name !== STANDARD_AUTHORIZER) throw new ConfigError('authorizer.class.name', `only ${STANDARD_AUTHORIZER} is served here, got "${name}"`);
    return new StandardAuthorizer(config, dataDir);
  }

  isSuperUser(principal: KafkaPrincipal): boolean {
    return this.superUsers.has(principalString(principal));
  }

  /** Whether `who` may perform `operation` on the resource `resourceType`/`name` (a literal name). */
  authorize(who: Requester, operation: number, resourceType: number, name: string): boolean {
    if (this.isSuperUser(who.principal)) return true;
    const principal = principalString(who.principal);
    let hasResourceAcls = false;
    let allowed = false;
    for (const acl of this.acls) {
      if (acl.resourceType !== resourceType || !patternApplies(acl, name)) continue;
      hasResourceAcls = true;
      const result = aclResult(acl, principal, who.host, operation);
      if (result === 'deny') return false;
      if (result === 'allow') allowed = true;
    }
    return allowed || (!hasResourceAcls && this.allowIfNoAcl);
  }

  /**
   * Kafka's `Authorizer.authorizeByResourceType`: whether `who` could perform `operation` on at least
   * one resource of the type (InitProducerId without a transactional id asks it for WRITE on any topic).
   */
  authorizeByResourceType(who: Requester, operation: number, resourceType: number): boolean {
    if (this.authorize(who, operation, resourceType, 'hardcode')) return true;
    const principal = principalString(who.principal);
    const deny = { literal: new Set<string>(), prefixed: new Set<string>() };
    const allow = { literal: new Set<string>(), prefixed: new Set<string>() };
    let wildcardAllow = false;
    for (const acl of this.acls) {
      if (acl.resourceType !== resourceType) continue;
      if (acl.host !== who.host && acl.host !== WILDCARD) continue;
      if (acl.principal !== principal && acl.principal !== 'User:*') continue;
      if (acl.operation !== operation && acl.operation !== AclOperation.ALL) continue;
      const literal = acl.patternType === PatternType.LITERAL;
      if (acl.permissionType === AclPermissionType.DENY) {
        if (literal && acl.resourceName === WILDCARD) return false;
        (literal ? deny.literal : deny.prefixed).add(acl.resourceName);
      } else if (acl.permissionType === AclPermissionType.ALLOW) {
        if (literal && acl.resourceName === WILDCARD) wildcardAllow = true;
        else (literal ? allow.literal : allow.prefixed).add(acl.resourceName);
      }
    }
    if (wildcardAllow) return true;
    const dominated = (name: string) => [...name].some((_, i) => deny.prefixed.has(name.slice(0, i + 1)));
    for (const name of allow.literal) if (!deny.literal.has(name) && !dominated(name)) return true;
    for (const name of allow.prefixed) if (!dominated(name)) return true;
    return false;
  }

  /** The operations of the resource `who` is allowed, as the bit field Kafka reports (`AuthHelper.authorizedOperations`). */
  authorizedOperations(who: Requester, resourceType: number, name: string): number {
    return (SUPPORTED_OPERATIONS[resourceType] ?? []).reduce((bits, op) => (this.authorize(who, op, resourceType, name) ? bits | (1 << op) : bits), 0);
  }

  /** The ACLs a filter matches, in the order they were created. */
  list(filter: AclBindingFilter): AclBinding[] {
    return this.acls.filter((a) => filterMatches(filter, a));
  }

  /** Adds ACLs (an existing one is kept once) and persists them; durable when this returns. */
  add(bindings: readonly AclBinding[]): void {
    let changed = false;
    for (const b of bindings) {
      if (this.acls.some((a) => sameBinding(a, b))) continue;
      this.acls.push({ ...b });
      changed = true;
    }
    if (changed) this.save();
  }

  /** Removes what each filter matches (one result per filter, in order) and persists once. */
  remove(filters: readonly AclBindingFilter[]): AclBinding[][] {
    const results = filters.map((f) => this.acls.filter((a) => filterMatches(f, a)));
    const removed = new Set(results.flat());
    if (removed.size > 0) {
      this.acls = this.acls.filter((a) => !removed.has(a));
      this.save();
    }
    return results;
  }

  private save(): void {
    if (this.path !== null) writeJsonFile(this.path, { version: 1, acls: this.acls });
  }
}

/** Whether an ACL's resource pattern covers the literal name (`StandardAuthorizerData.findAclRule`'s sections). */
function patternApplies(acl: AclBinding, name: string): boolean {
  if (acl.patternType === PatternType.LITERAL) return acl.resourceName === name || acl.resourceName === WILDCARD;
  return acl.patternType === PatternType.PREFIXED && name.startsWith(acl.resourceName);
}

/** `StandardAuthorizerData.findResult`: allow, deny, or nothing for this principal, host and operation. */
function aclResult(acl: AclBinding, principal: string, host: string, operation: number): 'allow' | 'deny' | null {
  if (acl.principal !== principal && acl.principal !== 'User:*') return null;
  if (acl.host !== WILDCARD && acl.host !== host) return null;
  if (acl.operation !== AclOperation.ALL) {
    if (acl.permissionType === AclPermissionType.ALLOW) {
      if (operation === AclOperation.DESCRIBE) {
        if (!IMPLIES_DESCRIBE.has(acl.operation)) return null;
      } else if (operation === AclOperation.DESCRIBE_CONFIGS) {
        if (!IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return null;
      } else if (operation !== acl.operation) {
        return null;
      }
    } else if (operation !== acl.operation) {
      return null;
    }
  }
  return acl.permissionType === AclPermissionType.ALLOW ? 'allow' : acl.permissionType === AclPermissionType.DENY ? 'deny' : null;
}

/** Java's `InetAddress.getHostAddress()` of a Node remote address: IPv4 as is (an IPv4-mapped IPv6 too), IPv6 in full, unabbreviated, lower case. */
export function javaHostAddress(address: string): string {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1]!;
  if (!address.includes(':')) return address;
  const [head, tail = ''] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head!.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':');
}

