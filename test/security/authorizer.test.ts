import { describe, expect, it } from 'vitest';
import { BrokerConfig } from '../../src/config.js';
import { StandardAuthorizer, javaHostAddress } from '../../src/security/acl/authorizer.js';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType, type AclBinding } from '../../src/security/acl/acl-types.js';
import { userPrincipal } from '../../src/security/principal.js';
import { newAclError } from '../../src/security/acl/acl-requests.js';

const acl = (over: Partial<AclBinding>): AclBinding => ({
  resourceType: ResourceType.TOPIC, resourceName: 'orders', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: Op.READ, permissionType: Perm.ALLOW, ...over,
});
const alice = { principal: userPrincipal('alice'), host: '10.0.0.1' };
const bob = { principal: userPrincipal('bob'), host: '10.0.0.2' };

function authorizer(acls: AclBinding[], config: Record<string, string> = {}): StandardAuthorizer {
  const a = new StandardAuthorizer(new BrokerConfig(config), null);
  a.add(acls);
  return a;
}

describe("StandardAuthorizer semantics (Kafka 4.3's StandardAuthorizerData)", () => {
  it('literal, prefixed and wildcard ACLs; DENY wins; other principals and hosts do not match', () => {
    const a = authorizer([
      acl({}),
      acl({ resourceName: 'pay-', patternType: PatternType.PREFIXED, operation: Op.WRITE }),
      acl({ resourceName: '*', principal: 'User:*', operation: Op.DESCRIBE }),
      acl({ resourceName: 'pay-secret', permissionType: Perm.DENY, operation: Op.WRITE }),
      acl({ resourceName: 'audit', host: '10.0.0.9' }),
    ]);
    expect(a.authorize(alice, Op.READ, ResourceType.TOPIC, 'orders')).toBe(true);
    expect(a.authorize(alice, Op.READ, ResourceType.TOPIC, 'orders-x')).toBe(false);
    expect(a.authorize(alice, Op.WRITE, ResourceType.TOPIC, 'pay-1')).toBe(true);
    expect(a.authorize(alice, Op.WRITE, ResourceType.TOPIC, 'pay-secret')).toBe(false);
    expect(a.authorize(bob, Op.DESCRIBE, ResourceType.TOPIC, 'anything')).toBe(true);
    expect(a.authorize(bob, Op.READ, ResourceType.TOPIC, 'orders')).toBe(false);
    expect(a.authorize(alice, Op.READ, ResourceType.TOPIC, 'audit')).toBe(false);
    expect(a.authorize({ ...alice, host: '10.0.0.9' }, Op.READ, ResourceType.TOPIC, 'audit')).toBe(true);
    expect(a.authorize(alice, Op.READ, ResourceType.GROUP, 'orders')).toBe(false);
  });

  it('implied operations: READ, WRITE, DELETE, ALTER allow DESCRIBE; ALTER_CONFIGS allows DESCRIBE_CONFIGS; ALL everything; DENY implies nothing', () => {
    for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER]) expect(authorizer([acl({ operation: op })]).authorize(alice, Op.DESCRIBE, ResourceType.TOPIC, 'orders')).toBe(true);
    expect(authorizer([acl({ operation: Op.CREATE })]).authorize(alice, Op.DESCRIBE, ResourceType.TOPIC, 'orders')).toBe(false);
    expect(authorizer([acl({ operation: Op.ALTER_CONFIGS })]).authorize(alice, Op.DESCRIBE_CONFIGS, ResourceType.TOPIC, 'orders')).toBe(true);
    expect(authorizer([acl({ operation: Op.ALL })]).authorize(alice, Op.ALTER_CONFIGS, ResourceType.TOPIC, 'orders')).toBe(true);
    const denyRead = authorizer([acl({ operation: Op.ALL }), acl({ operation: Op.READ, permissionType: Perm.DENY })]);
    expect(denyRead.authorize(alice, Op.READ, ResourceType.TOPIC, 'orders')).toBe(false);
    expect(denyRead.authorize(alice, Op.DESCRIBE, ResourceType.TOPIC, 'orders')).toBe(true);
  });

  it('authorized operations as Kafka packs them', () => {
    const a = authorizer([acl({ resourceType: ResourceType.GROUP, resourceName: 'g', operation: Op.READ })]);
    expect(a.authorizedOperations(alice, ResourceType.GROUP, 'g')).toBe((1 << Op.READ) | (1 << Op.DESCRIBE));
    expect(a.authorizedOperations(bob, ResourceType.GROUP, 'g')).toBe(0);
    const su = authorizer([], { 'super.users': 'User:bob; User:carol' });
    expect(su.authorizedOperations(bob, ResourceType.GROUP, 'g')).toBe(3400);
    expect(su.authorizedOperations(bob, ResourceType.CLUSTER, 'kafka-cluster')).toBe([5, 7, 8, 9, 10, 11, 12].reduce((b, o) => b | (1 << o), 0));
  });

  it('allow.everyone.if.no.acl.found applies only to resources without any ACL', () => {
    const a = authorizer([acl({ principal: 'User:carol' })], { 'allow.everyone.if.no.acl.found': 'true' });
    expect(a.authorize(alice, Op.READ, ResourceType.TOPIC, 'other')).toBe(true);
    expect(a.authorize(alice, Op.READ, ResourceType.TOPIC, 'orders')).toBe(false);
    expect(authorizer([]).authorize(alice, Op.READ, ResourceType.TOPIC, 'other')).toBe(false);
  });

  it('authorizeByResourceType (InitProducerId): an ALLOW somewhere not dominated by a DENY', () => {
    expect(authorizer([acl({ operation: Op.WRITE })]).authorizeByResourceType(alice, Op.WRITE, ResourceType.TOPIC)).toBe(true);
    expect(authorizer([acl({ operation: Op.READ })]).authorizeByResourceType(alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
    expect(authorizer([acl({ operation: Op.WRITE }), acl({ resourceName: 'ord', patternType: PatternType.PREFIXED, operation: Op.WRITE, permissionType: Perm.DENY })]).authorizeByResourceType(alice, Op.WRITE, ResourceType.TOPIC)).toBe(false);
    expect(authorizer([acl({ resourceName: '*', operation: Op.WRITE })]).authorizeByResourceType(alice, Op.WRITE, ResourceType.TOPIC)).toBe(true);
  });

  it("CreateAcls refusals with Kafka's messages; client addresses as Java prints them", () => {
    expect(newAclError(acl({ resourceType: ResourceType.CLUSTER, resourceName: 'x' }))).toBe('The only valid name for the CLUSTER resource is kafka-cluster');
    expect(newAclError(acl({ resourceName: '' }))).toBe('Invalid empty resource name');
    expect(newAclError(acl({ resourceType: ResourceType.ANY }))).toBe('Invalid resourceType ANY');
    expect(newAclError(acl({ patternType: PatternType.MATCH }))).toBe('Invalid patternType MATCH');
    expect(newAclError(acl({ operation: Op.ANY }))).toBe('Invalid operation ANY');
    expect(newAclError(acl({ permissionType: Perm.ANY }))).toBe('Invalid permissionType ANY');
    expect(newAclError(acl({}))).toBeNull();
    expect(javaHostAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(javaHostAddress('::1')).toBe('0:0:0:0:0:0:0:1');
    expect(javaHostAddress('fe80::a:0b')).toBe('fe80:0:0:0:0:0:a:b');
  });
});

describe('the authorization table', () => {
  it('says what every served API checks (a missing entry would refuse to start with an authorizer)', async () => {
    const { API_HANDLERS } = await import('../../src/apis/registry.js');
    const { API_CHECKS } = await import('../../src/security/authorization/api-checks.js');
    const missing = [...API_HANDLERS.values()].filter((api) => !API_CHECKS[api.apiKey]).map((api) => api.name);
    expect(missing).toEqual([]);
  });
});
