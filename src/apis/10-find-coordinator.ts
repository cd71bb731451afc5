import { defaultErrorMessage } from '../protocol/error-messages.js';
import type { FindCoordinatorRequest } from '../protocol/messages/FindCoordinatorRequest.js';
import { defaultCoordinator, defaultFindCoordinatorResponse, type FindCoordinatorResponse, type Coordinator } from '../protocol/messages/FindCoordinatorResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Broker } from '../broker.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';
import { shareCoordinatorKey, shareStatePartitionFor } from '../share/persister.js';
import { parseKafkaUuid } from '../coordinator/consumer/assignor/java-order.js';
import { SHARE_GROUP_STATE_TOPIC_NAME } from '../topics/topic-name.js';

const KEY_TYPE_GROUP = 0;
const KEY_TYPE_TRANSACTION = 1;
/** KIP-932: a share-partition key `groupId:topicId:partition`, from v6. */
const KEY_TYPE_SHARE = 2;
const SHARE_FROM = 6;
/** From v4 a request carries a batch of keys (KIP-699). */
const BATCHED_FROM = 4;

/**
 * FindCoordinator (key 10, v0-6). v0-3 carry one key, v4+ a batch (`CoordinatorKeys`).
 * The coordinator of a group is the leader of its `__consumer_offsets` partition in the simulated
 * cluster (or where `cluster.moveCoordinator` pinned it), whichever broker is asked; a
 * transactional id maps to a `__transaction_state` partition the same way (src/cluster).
 * From v6 a share-partition key (type 2, `groupId:topicId:partition`, KIP-932) maps to its
 * `__share_group_state` partition (`ShareCoordinatorService.partitionFor`); a key that is not in
 * that form (`SharePartitionKey.validate`) answers INVALID_REQUEST.
 * The first lookup of a group creates `__consumer_offsets`, of a transactional id
 * `__transaction_state`, as Kafka's `KafkaApis.getCoordinator` (which answers
 * COORDINATOR_NOT_AVAILABLE until the new topic is ready: ours is ready at once).
 * An empty key (group or transactional id) has a coordinator too; key types other than 0-2 answer
 * INVALID_REQUEST, as Kafka's `KafkaApis.handleFindCoordinatorRequest`.
 */
export const api: ApiDefinition<FindCoordinatorRequest, FindCoordinatorResponse> = {
  apiKey: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 6,
  // FindCoordinatorRequest.getErrorResponse: one entry per key (v4+), or no coordinator (v0-3).
  errorResponse(req, version, errorCode) {
    const res = { ...defaultFindCoordinatorResponse(), errorCode };
    if (version >= BATCHED_FROM) {
      return { ...res, coordinators: req.coordinatorKeys.map((key) => ({ ...defaultCoordinator(), key, nodeId: -1, host: '', port: -1, errorCode, errorMessage: null })) };
    }
    // v1-3: `prepareOldResponse` sets `Errors.message()`.
    return { ...res, errorMessage: version >= 1 ? defaultErrorMessage(errorCode) : null, nodeId: -1, host: '', port: -1 };
  },
  // Group keys (type 0) as groups, transactional ids (type 1) as transactional ids; share keys name neither.
  names(req, version) {
    const keys = version >= BATCHED_FROM ? req.coordinatorKeys : [req.key];
    const keyType = version >= 1 ? req.keyType : KEY_TYPE_GROUP;
    return { groups: keyType === KEY_TYPE_GROUP ? keys : [], transactionalIds: keyType === KEY_TYPE_TRANSACTION ? keys : [] };
  },
  routing: ANY_BROKER,
  handle(req, ctx) {
    const keyType = ctx.apiVersion >= 1 ? req.keyType : KEY_TYPE_GROUP;
    if (ctx.apiVersion >= BATCHED_FROM) {
      return {
        throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, nodeId: 0, host: '', port: 0,
        coordinators: req.coordinatorKeys.map((key) => lookup(ctx.broker, key, keyType, ctx.listener, ctx.apiVersion)),
      };
    }
    const c = lookup(ctx.broker, req.key, keyType, ctx.listener, ctx.apiVersion);
    return {
      // v1-3 carry `Errors.message()`, "NONE" on success too (KafkaApis' createFindCoordinatorResponse).
      throttleTimeMs: 0, errorCode: c.errorCode, errorMessage: defaultErrorMessage(c.errorCode),
      nodeId: c.nodeId, host: c.host, port: c.port, coordinators: [],
    };
  },
};

function lookup(broker: Broker, key: string, keyType: number, listener: string | undefined, apiVersion: number): Coordinator {
  if (keyType === KEY_TYPE_SHARE && apiVersion >= SHARE_FROM) {
    const canonical = canonicalShareKey(key);
    if (canonical === null) return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: null };
    // Kafka creates `__share_group_state` on the first lookup of a share-partition key.
    const unavailable = createdOrUnavailable(broker, key, () => broker.ensureShareStateTopic());
    if (unavailable) return unavailable;
    const partitions = broker.config.int('share.coordinator.state.topic.num.partitions');
    return found(broker, key, broker.cluster.leaderOf(SHARE_GROUP_STATE_TOPIC_NAME, shareStatePartitionFor(canonical, partitions)), listener);
  }
  // An empty group id or transactional id is a key like any other (partition 0: its hash is 0), as
  // Kafka 4.3.1's KafkaApis.getCoordinator, which checks only the key type (conformance: basics).
  if (keyType !== KEY_TYPE_GROUP && keyType !== KEY_TYPE_TRANSACTION) {
    return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: null };
  }
  // Kafka creates `__consumer_offsets` on the first lookup of a group, `__transaction_state` on the
  // first lookup of a transactional id.
  const create = keyType === KEY_TYPE_GROUP ? () => broker.ensureOffsetsTopic() : () => broker.transactionLog.ensureCreated();
  const unavailable = createdOrUnavailable(broker, key, create);
  if (unavailable) return unavailable;
  const nodeId = keyType === KEY_TYPE_GROUP ? broker.cluster.coordinatorOf(key) : broker.cluster.transactionCoordinatorOf(key);
  return found(broker, key, nodeId, listener);
}

/**
 * Creates the internal topic a first lookup creates; when that fails (a full disk), the lookup is
 * COORDINATOR_NOT_AVAILABLE, as Kafka answers while the topic cannot be created, and a later
 * lookup tries again. Null once it exists.
 */
function createdOrUnavailable(broker: Broker, key: string, create: () => void): Coordinator | null {
  try {
    create();
    return null;
  } catch (err) {
    broker.log.warn({ err, key }, 'could not create the internal topic of a coordinator lookup');
    return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
  }
}

function found(broker: Broker, key: string, nodeId: number, listener: string | undefined): Coordinator {
  if (nodeId === -1) return { key, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
  const { host, port } = broker.cluster.endpoint(nodeId, listener);
  // Kafka 4.3 sends an empty message (not null) in each v4+ entry on success.
  return { key, nodeId, host, port, errorCode: ErrorCode.NONE, errorMessage: '' };
}

/**
 * `SharePartitionKey.getInstance(key).asCoordinatorKey()`: `groupId:topicId:partition` split at
 * the last two colons (the group id may hold colons), the topic id a Kafka uuid, the partition an
 * int; null when the key is not in that form.
 */
function canonicalShareKey(key: string): string | null {
  const tokens = key.split(':');
  while (tokens.length > 0 && tokens[tokens.length - 1] === '') tokens.pop(); // Java's split drops trailing empties
  if (tokens.length < 3) return null;
  const partition = tokens[tokens.length - 1]!;
  const topicId = tokens[tokens.length - 2]!;
  const groupId = tokens.slice(0, -2).join(':');
  if (groupId.trim() === '' || parseKafkaUuid(topicId) === null || !/^[+-]?\d+$/.test(partition)) return null;
  const p = Number(partition);
  if (!Number.isInteger(p) || p < -2147483648 || p > 2147483647) return null;
  return shareCoordinatorKey(groupId, topicId, p);
}
