/**
 * The OpenAPI 3.0 description of the admin API, served at `GET /openapi.json`. Written by hand
 * next to the routes (src/admin/server.ts); test/faults/admin-openapi.test.ts validates it and
 * checks that every route is described.
 */
import { FAULT_ACTIONS } from '../faults/actions/index.js';
import { MAX_TIMER_MS } from '../faults/validate.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });
const errorResponse = (description: string) => json(ref('Error'), description);
const int = (description: string, minimum?: number, maximum?: number) => ({ type: 'integer', description, ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) });
const str = (description: string) => ({ type: 'string', description });
const nullable = (schema: object) => ({ ...schema, nullable: true });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Fault rule id' };
const groupParam = { name: 'groupId', in: 'path', required: true, schema: { type: 'string' }, description: 'Group id' };
/** The same routes at `/group...?groupId=`: a path cannot name the group ids `.` and `..` (URL parsing folds dot segments). */
const groupQueryParam = { name: 'groupId', in: 'query', required: true, schema: { type: 'string' }, description: 'Group id (any, including `.` and `..`)' };
const brokerParam = { name: 'brokerId', in: 'path', required: true, schema: { type: 'integer', minimum: 0 }, description: 'Broker id (node.id, node.id+1, ...)' };
const topicPartitions = { type: 'array', items: { type: 'object', required: ['topic', 'partitions'], properties: { topic: { type: 'string' }, partitions: { type: 'array', items: { type: 'integer' } } } } };
const clusterBody = (required: string[], properties: object) => ({ required: true, content: { 'application/json': { schema: { type: 'object', required, additionalProperties: false, properties } } } });

/** A match on an id: the id, or `{ "prefix": ... }` for every id starting with it (faults/name-match.ts). */
const nameMatch = (description: string) => ({
  oneOf: [{ type: 'string' }, { type: 'object', required: ['prefix'], additionalProperties: false, properties: { prefix: { type: 'string', minLength: 1 } } }],
  description: `${description}; or {"prefix": "..."}: every id starting with it`,
});

const faultMatch = {
  type: 'object',
  additionalProperties: false,
  description: 'Which requests the rule applies to; every field given must match.',
  properties: {
    api: { oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'API name (OffsetCommit) or key (8)' },
    minVersion: int('Lowest request version matched', 0),
    maxVersion: int('Highest request version matched', 0),
    group: nameMatch('Group id named by the request'),
    transactionalId: nameMatch('Transactional id named by the request (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit, FindCoordinator key type 1, DescribeTransactions, a transactional Produce)'),
    topic: nameMatch('Topic named by the request; per-partition APIs fail only its partitions'),
    partitions: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 1, description: 'Partitions named by the request; per-partition APIs fail only these' },
    partition: int('Shorthand for partitions: [n]', 0),
    clientId: nameMatch('Client id from the request header'),
    memberId: nameMatch('Member id named by the request'),
    brokerId: int('Broker (node.id) receiving the request', 0),
    nth: int('Fire from the Nth matching request on (1-based)', 1),
  },
};

/** One schema per fault action (src/faults/actions/), from its definition. */
const faultAction = {
  description: 'What the rule does when it fires.',
  oneOf: FAULT_ACTIONS.map((a) => ({
    type: 'object',
    title: a.type,
    required: ['type', ...a.required],
    additionalProperties: false,
    properties: { type: { type: 'string', enum: [a.type] }, ...a.fields },
  })),
};

const transactionFields = ['transactionalId', 'state', 'producerId', 'producerEpoch', 'timeoutMs', 'startTime', 'lastUpdateTime', 'coordinator', 'partitions'];
const transactionProperties = {
  transactionalId: { type: 'string' },
  state: { type: 'string', enum: ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'PrepareEpochFence'] },
  producerId: { type: 'integer' },
  producerEpoch: { type: 'integer' },
  timeoutMs: int('transaction.timeout.ms of the producer'),
  startTime: nullable({ type: 'string', format: 'date-time', description: 'Start of the open (or last) transaction, server clock' }),
  lastUpdateTime: { type: 'string', format: 'date-time' },
  coordinator: int('Broker coordinating the id'),
  partitions: { type: 'array', items: { type: 'object', required: ['topic', 'partitions'], properties: { topic: { type: 'string' }, partitions: { type: 'array', items: { type: 'integer' } } } } },
};

const times = { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['unlimited'] }], description: 'Firings (default 1; errors: list length; with durationMs: unlimited)' };

/** The operations about one group, served at `/groups/{groupId}...` and at `/group...?groupId=` (src/admin/id-route.ts). */
const describeGroupOperation = { summary: 'Members, assignments (and, for consumer and share groups, epochs and subscriptions; consumer groups: target assignments), committed offsets, log-end offsets and lag; share groups: their share partitions', responses: { '200': json(ref('GroupDescription'), 'The group'), '404': errorResponse('Unknown group') } };
/** The operation about one transactional id, at `/transactions/{transactionalId}` and `/transaction?transactionalId=`. */
const describeTransactionOperation = {
  summary: 'One transactional id, with the offsets its open transaction sent (pending until its COMMIT marker)',
  responses: { '200': json(ref('TransactionDescription'), 'The transaction'), '404': errorResponse('Unknown transactional id') },
};
const groupOffsetsOperation = {
  summary: 'Committed offsets, log-end offsets and lag of one group',
  responses: { '200': json({ type: 'object', required: ['groupId', 'offsets', 'totalLag'], properties: { groupId: { type: 'string' }, offsets: { type: 'array', items: ref('GroupOffset') }, totalLag: { type: 'integer' } } }, 'Offsets'), '404': errorResponse('Unknown group') },
};
const groupHistoryOperation = {
  summary: 'What the console shows over time: the group\'s timeline (rebalances with their inferred cause, members joining and leaving, state changes, coordinator moves, commits), the member behind each partition\'s last commit, and lag samples',
  responses: {
    '200': json({ type: 'object', required: ['groupId', 'events', 'lastCommitBy', 'lag'], properties: {
      groupId: { type: 'string' },
      events: { type: 'array', items: { type: 'object', required: ['at', 'kind'], properties: { at: { type: 'string', format: 'date-time', description: 'Server clock' }, kind: { type: 'string', enum: ['seen', 'rebalance', 'member-joined', 'member-left', 'state', 'coordinator', 'type', 'commit', 'deleted'] } }, additionalProperties: true } },
      lastCommitBy: { type: 'object', additionalProperties: nullable({ type: 'string' }), description: '"topic-partition" -> member id that owned the partition at its last commit seen' },
      lag: { type: 'object', required: ['partitions', 'samples'], properties: { partitions: { type: 'array', items: { type: 'string' }, description: 'The series: topic-partition for the first 100 partitions seen, then "other partitions" (the sum of the others\' lags)' }, samples: { type: 'array', items: { type: 'object', required: ['t', 'lag'], properties: { t: { type: 'integer', description: 'Wall clock, ms since the epoch' }, lag: { type: 'array', items: nullable({ type: 'integer' }) } } } } } },
    } }, 'History since the admin API started'),
    '404': errorResponse('Group not seen'),
  },
};

export const OPENAPI_DOCUMENT = {
  openapi: '3.0.3',
  info: {
    title: 'kafka-mock-coordinator admin API',
    version: '1',
    description:
      'Control a running kafka-mock-coordinator: fault rules, the request log, the manual clock, the offsets retention sweep, the simulated cluster (brokers, coordinators, leaders), and consumer groups (members, assignments, committed offsets, log-end offsets, lag). Errors are JSON: {statusCode, error, message}. With a token (--admin-token) every request needs Authorization: Bearer <token> (401 otherwise). State-changing requests (POST, DELETE) from another origin are refused with 403, and one with a body that is not application/json with 415.',
  },
  security: [{}, { bearer: [] }],
  paths: {
    '/health': {
      get: { operationId: 'health', summary: 'Liveness and basic facts', responses: { '200': json(ref('Health'), 'The server is up') } },
    },
    '/faults': {
      get: { operationId: 'listFaults', summary: 'Every fault rule (exhausted and expired ones included until removed)', responses: { '200': json({ type: 'object', required: ['faults'], properties: { faults: { type: 'array', items: ref('FaultRule') } } }, 'Rules in the order added') } },
      post: {
        operationId: 'addFault',
        summary: 'Add a fault rule',
        requestBody: { required: true, content: { 'application/json': { schema: ref('FaultRuleSpec') } } },
        responses: { '201': json(ref('FaultRule'), 'The rule as stored'), '400': errorResponse('Invalid rule'), '409': errorResponse('Duplicate id') },
      },
      delete: { operationId: 'clearFaults', summary: 'Remove every rule', responses: { '200': json({ type: 'object', required: ['removed'], properties: { removed: int('Rules removed') } }, 'Removed') } },
    },
    '/faults/{id}': {
      parameters: [idParam],
      get: { operationId: 'getFault', summary: 'One rule with its firing count', responses: { '200': json(ref('FaultRule'), 'The rule'), '404': errorResponse('No such rule') } },
      delete: { operationId: 'removeFault', summary: 'Remove a rule', responses: { '204': { description: 'Removed' }, '404': errorResponse('No such rule') } },
    },
    '/faults/{id}/wait': {
      parameters: [idParam],
      post: {
        operationId: 'waitFault',
        summary: 'Wait until the rule has fired `count` times',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['count'], additionalProperties: false, properties: { count: int('Total firings to wait for', 0), timeoutMs: int('Give up after this long (default 30000)', 0) } } } } },
        responses: { '200': json(ref('FaultRule'), 'Reached'), '400': errorResponse('Invalid request'), '404': errorResponse('No such rule'), '408': errorResponse('Not reached within timeoutMs'), '410': errorResponse('Removed while waiting') },
      },
    },
    '/requests': {
      get: {
        operationId: 'listRequests',
        summary: 'Recent requests (the newest 1000 are kept), oldest first',
        parameters: [
          { name: 'api', in: 'query', schema: { type: 'string' }, description: 'API name or key' },
          { name: 'group', in: 'query', schema: { type: 'string' } },
          { name: 'clientId', in: 'query', schema: { type: 'string' } },
          { name: 'transactionalId', in: 'query', schema: { type: 'string' } },
          { name: 'brokerId', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'The broker that received it (--brokers N)' },
          { name: 'sinceSeq', in: 'query', schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, description: 'Only entries with a greater seq' },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_TIMER_MS }, description: 'The newest N' },
          {
            name: 'failed',
            in: 'query',
            schema: { type: 'boolean' },
            description: 'Only requests that failed (answered with an error, a fault rule fired, or closed or failed without an answer); the last 1000 of those are kept beyond the log',
          },
          {
            name: 'error',
            in: 'query',
            schema: { type: 'string' },
            description: "Only requests answered with this error (Kafka's name, any case, or its code) anywhere in the response; the failures kept beyond the log are searched too",
          },
        ],
        responses: { '200': json({ type: 'object', required: ['requests'], properties: { requests: { type: 'array', items: ref('RequestLogEntry') } } }, 'Requests'), '400': errorResponse('Invalid query') },
      },
      delete: { operationId: 'clearRequests', summary: 'Empty the request log', responses: { '204': { description: 'Cleared' } } },
    },
    '/groups': {
      get: { operationId: 'listGroups', summary: 'Every group: classic and consumer (KIP-848) groups, and groups known only by committed offsets', responses: { '200': json({ type: 'object', required: ['groups'], properties: { groups: { type: 'array', items: ref('GroupSummary') } } }, 'Groups by id') } },
    },
    '/groups/{groupId}': { parameters: [groupParam], get: { operationId: 'describeGroup', ...describeGroupOperation } },
    '/group': { parameters: [groupQueryParam], get: { operationId: 'describeGroupByQuery', ...describeGroupOperation } },
    '/transactions': {
      get: {
        operationId: 'listTransactions',
        summary: 'Every transactional id the transaction coordinator knows (the first `limit` by id when given): state, producer id and epoch, timeout, start, coordinator, partitions of the open transaction. Written a slice at a time as the client reads',
        parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1 }, description: 'At most this many ids, the first by id (the console asks for 1,000)' }],
        responses: { '200': json({ type: 'object', required: ['transactions', 'total'], properties: { transactions: { type: 'array', items: ref('Transaction') }, total: { type: 'integer', description: 'Transactional ids known when the listing began (limit or not)' } } }, 'Transactions by id') },
      },
    },
    '/transactions/{transactionalId}': {
      parameters: [{ name: 'transactionalId', in: 'path', required: true, schema: { type: 'string' }, description: 'Transactional id' }],
      get: { operationId: 'describeTransaction', ...describeTransactionOperation },
    },
    '/transaction': {
      parameters: [{ name: 'transactionalId', in: 'query', required: true, schema: { type: 'string' }, description: 'Transactional id (any, including `.` and `..`)' }],
      get: { operationId: 'describeTransactionByQuery', ...describeTransactionOperation },
    },
    '/groups/{groupId}/offsets': { parameters: [groupParam], get: { operationId: 'groupOffsets', ...groupOffsetsOperation } },
    '/group/offsets': { parameters: [groupQueryParam], get: { operationId: 'groupOffsetsByQuery', ...groupOffsetsOperation } },
    '/groups/{groupId}/history': { parameters: [groupParam], get: { operationId: 'groupHistory', ...groupHistoryOperation } },
    '/group/history': { parameters: [groupQueryParam], get: { operationId: 'groupHistoryByQuery', ...groupHistoryOperation } },
    '/group/expire-session': {
      post: {
        operationId: 'expireMemberSession',
        summary: "Expire one member's session now, as if it stopped heartbeating for its session timeout (a classic member removed and its group rebalanced, a KIP-848 or share member fenced); the other members keep theirs",
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['groupId', 'memberId'], additionalProperties: false, properties: { groupId: { type: 'string', minLength: 1 }, memberId: { type: 'string', minLength: 1 } } } } } },
        responses: {
          '200': json({ type: 'object', required: ['groupId', 'memberId', 'groupType'], properties: { groupId: { type: 'string' }, memberId: { type: 'string' }, groupType: { type: 'string', enum: ['classic', 'consumer', 'share', 'streams'] } } }, 'Expired (its operation runs behind the requests already read)'),
          '400': errorResponse('Invalid request'),
          '404': errorResponse('No session timer for that member of that group'),
        },
      },
    },
    '/overview': {
      get: {
        operationId: 'overview',
        summary: 'Brokers (simulated ones too), topics (partitions, log start and end offsets, size) and groups (type, state, protocol or assignor, members, total lag)',
        responses: { '200': json({ type: 'object', required: ['clusterId', 'bootstrap', 'clock', 'brokers', 'topics', 'groups'], properties: {
          clusterId: { type: 'string' },
          bootstrap: { type: 'string' },
          clock: { type: 'object', properties: { mode: { type: 'string' }, now: { type: 'string', format: 'date-time' } } },
          brokers: { type: 'array', items: ref('ClusterBroker') },
          topics: { type: 'array', items: { type: 'object', required: ['name', 'topicId', 'partitions', 'sizeBytes'], properties: { name: { type: 'string' }, topicId: { type: 'string' }, sizeBytes: { type: 'integer' }, partitions: { type: 'array', items: { type: 'object', properties: { partition: { type: 'integer' }, logStartOffset: { type: 'integer' }, logEndOffset: { type: 'integer' }, sizeBytes: { type: 'integer' }, leader: { type: 'integer' } } } } } } },
          groups: { type: 'array', items: { type: 'object', required: ['groupId', 'type', 'state', 'protocolOrAssignor', 'members', 'totalLag'], properties: { groupId: { type: 'string' }, type: { type: 'string' }, state: { type: 'string' }, protocolOrAssignor: nullable({ type: 'string' }), members: { type: 'integer' }, totalLag: { type: 'integer' } } } },
        } }, 'Overview') },
      },
    },
    '/events': {
      get: {
        operationId: 'events',
        summary: 'Server-sent events: a `change` event (JSON {groups: [ids], overview, faults, clock, transactions}) after each change the server sees; the console refetches what it shows',
        responses: { '200': { description: 'An endless text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics: kafka_exporter\'s kafka_* series, the server\'s kmc_* series and Node\'s process metrics',
        responses: { '200': { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/': {
      get: {
        operationId: 'console',
        summary: 'The web console (HTML); served without the bearer token, which the page asks for when the API needs one',
        security: [],
        responses: { '200': { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } }, '503': { description: 'The console is not built (npm run build)', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/console/assets/{file}': {
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' }, description: 'A bundled script or style sheet named in the page' }],
      get: {
        operationId: 'consoleAsset',
        summary: 'A file of the web console (served without the bearer token)',
        security: [],
        responses: { '200': { description: 'The file', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }, '404': errorResponse('No such file') },
      },
    },
    '/clock': {
      get: { operationId: 'getClock', summary: 'The server clock', responses: { '200': json(ref('Clock'), 'Clock') } },
    },
    '/clock/advance': {
      post: {
        operationId: 'advanceClock',
        summary: 'Advance the manual clock, firing what falls due in order',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['ms'], additionalProperties: false, properties: { ms: int('Milliseconds to advance', 0) } } } } },
        responses: { '200': json(ref('ClockAdvance'), 'Advanced'), '400': errorResponse('Invalid ms'), '409': errorResponse('The clock is not manual') },
      },
    },
    '/offsets/compact': {
      post: { operationId: 'compactOffsets', summary: 'Compact __consumer_offsets now (the log cleaner, regardless of the dirty ratio)', responses: { '200': json(ref('CompactionSummary'), 'What was cleaned (durable)') } },
    },
    '/offsets/sweep': {
      post: { operationId: 'sweepOffsets', summary: 'Run the offsets retention sweep now', responses: { '200': json(ref('SweepResult'), 'What the sweep removed (durable)') } },
    },
    '/cluster': {
      get: { operationId: 'describeCluster', summary: 'The simulated brokers (--brokers N), moved coordinators and leaders, coordinator load windows', responses: { '200': json(ref('Cluster'), 'The cluster') } },
    },
    '/cluster/move-coordinator': {
      post: {
        operationId: 'moveCoordinator',
        summary: "Make a broker the coordinator of a group or of a transactional id (one of the two); the previous one answers NOT_COORDINATOR",
        requestBody: clusterBody(['brokerId'], { groupId: str('Group id'), transactionalId: str('Transactional id (instead of groupId)'), brokerId: int('New coordinator', 0) }),
        responses: {
          '200': json(
            { type: 'object', required: ['previous', 'coordinator'], properties: { groupId: { type: 'string' }, transactionalId: { type: 'string' }, previous: int('Previous coordinator'), coordinator: int('Coordinator now') } },
            'Moved',
          ),
          '400': errorResponse('Invalid request'),
          '404': errorResponse('Unknown broker'),
        },
      },
    },
    '/cluster/coordinator-load': {
      post: {
        operationId: 'coordinatorLoadInProgress',
        summary: 'The coordinator of a group (or of every group) answers COORDINATOR_LOAD_IN_PROGRESS for durationMs of real time (classic Heartbeat: NONE); 0 ends it',
        requestBody: clusterBody(['durationMs'], { groupId: str('Group id (or all: true)'), all: { type: 'boolean', description: 'Every group' }, durationMs: int('How long (real ms)', 0) }),
        responses: {
          '200': json({ type: 'object', required: ['groupId', 'until'], properties: { groupId: nullable({ type: 'string' }), until: nullable({ type: 'string', format: 'date-time' }) } }, 'Loading until'),
          '400': errorResponse('Invalid request'),
        },
      },
    },
    '/cluster/brokers/{brokerId}/stop': {
      parameters: [brokerParam],
      post: {
        operationId: 'stopBroker',
        summary: 'Take a broker down: its listener closes, its connections drop, its partitions and groups fail over',
        responses: { '200': json(ref('Cluster'), 'Stopped'), '400': errorResponse('Invalid broker id'), '404': errorResponse('Unknown broker'), '409': errorResponse('Already stopped') },
      },
    },
    '/cluster/brokers/{brokerId}/start': {
      parameters: [brokerParam],
      post: {
        operationId: 'startBroker',
        summary: 'Bring a stopped broker back on the same port',
        responses: { '200': json(ref('Cluster'), 'Started'), '400': errorResponse('Invalid broker id'), '404': errorResponse('Unknown broker'), '409': errorResponse('Already running'), '500': errorResponse('The port could not be bound') },
      },
    },
    '/cluster/move-leader': {
      post: {
        operationId: 'moveLeader',
        summary: 'Make a broker the leader of a partition; the previous leader answers NOT_LEADER_OR_FOLLOWER',
        requestBody: clusterBody(['topic', 'partition', 'brokerId'], { topic: str('Topic'), partition: int('Partition', 0), brokerId: int('New leader', 0) }),
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['topic', 'partition', 'previous', 'leader', 'pendingLeader'],
              properties: {
                topic: { type: 'string' },
                partition: { type: 'integer' },
                previous: int('Previous leader'),
                leader: int('Leader now'),
                pendingLeader: nullable(int('The broker asked for when it is stopped: it leads once it starts, the leader and its epoch unchanged until then; null when the move took effect')),
              },
            },
            'Moved (or pending: the broker is stopped)',
          ),
          '400': errorResponse('Invalid request'),
          '404': errorResponse('Unknown broker, topic or partition'),
        },
      },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Required on every request when the server has --admin-token / KMC_ADMIN_TOKEN, except for the web console\'s page and files (`/`, `/console/assets/*`)' } },
    schemas: {
      Error: { type: 'object', required: ['statusCode', 'error', 'message'], properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } } },
      Health: { type: 'object', required: ['status', 'bootstrap', 'clock'], properties: { status: { type: 'string', enum: ['ok'] }, bootstrap: { type: 'string' }, nodeId: { type: 'integer' }, clusterId: { type: 'string' }, clock: { type: 'string', enum: ['system', 'manual', 'custom'] } } },
      FaultMatch: faultMatch,
      FaultAction: faultAction,
      FaultRuleSpec: {
        type: 'object',
        required: ['action'],
        additionalProperties: false,
        properties: { id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,100}$' }, description: { type: 'string' }, match: ref('FaultMatch'), action: ref('FaultAction'), times, durationMs: int('Stop firing this long after being added (real ms)', 1) },
      },
      FaultRule: {
        type: 'object',
        required: ['id', 'match', 'action', 'times', 'fired', 'matched', 'remaining', 'state', 'createdAt', 'expiresAt'],
        properties: {
          id: { type: 'string' },
          description: { type: 'string' },
          match: { type: 'object', description: 'Normalized match: api as name plus apiKey, nth always present', additionalProperties: true },
          action: { type: 'object', description: 'Normalized action: errors by name plus their codes', additionalProperties: true, required: ['type'], properties: { type: { type: 'string', enum: FAULT_ACTIONS.map((a) => a.type) } } },
          times,
          durationMs: { type: 'integer' },
          fired: int('Times fired'),
          matched: int('Matching requests seen'),
          remaining: times,
          state: { type: 'string', enum: ['active', 'exhausted', 'expired', 'removed'] },
          createdAt: { type: 'string', format: 'date-time' },
          expiresAt: nullable({ type: 'string', format: 'date-time' }),
        },
      },
      RequestLogEntry: {
        type: 'object',
        required: ['seq', 'time', 'api', 'apiKey', 'version', 'correlationId', 'clientId', 'connectionId', 'brokerId', 'principal', 'group', 'groups', 'memberId', 'topics', 'transactionalId', 'error', 'errors', 'faults', 'handled', 'outcome', 'durationMs'],
        properties: {
          seq: { type: 'integer' },
          time: { type: 'string', format: 'date-time' },
          api: { type: 'string' },
          apiKey: { type: 'integer' },
          version: { type: 'integer' },
          correlationId: { type: 'integer' },
          clientId: { type: 'string' },
          connectionId: { type: 'string' },
          brokerId: { type: 'integer', description: 'The broker (node.id) that received it' },
          principal: { type: 'string' },
          group: nullable({ type: 'string' }),
          groups: { type: 'array', items: { type: 'string' } },
          memberId: nullable({ type: 'string' }),
          topics: { type: 'array', items: { type: 'string' } },
          transactionalId: nullable({ type: 'string' }),
          error: nullable({ type: 'string', description: 'Error returned (top-level first), null for NONE' }),
          errors: { type: 'array', items: { type: 'string' } },
          faults: { type: 'array', items: { type: 'string' }, description: 'Ids of rules that fired on this request' },
          handled: { type: 'boolean', description: "Whether the request's handler ran (its writes applied, answered or not); false when a rule answered, hung or closed instead" },
          outcome: { type: 'string', enum: ['pending', 'response', 'no-response', 'closed', 'failed'] },
          durationMs: nullable({ type: 'integer' }),
        },
      },
      GroupSummary: {
        type: 'object',
        required: ['groupId', 'type', 'state', 'protocolType', 'members', 'committedPartitions', 'groupEpoch'],
        properties: {
          groupId: { type: 'string' },
          type: { type: 'string', enum: ['classic', 'consumer', 'share', 'streams'], description: 'classic (JoinGroup/SyncGroup groups, standalone committers), consumer (KIP-848), share (KIP-932) or streams (KIP-1071)' },
          state: { type: 'string' },
          protocolType: { type: 'string' },
          members: { type: 'integer' },
          committedPartitions: { type: 'integer' },
          groupEpoch: nullable({ type: 'integer', description: 'Consumer groups: the group epoch; null for classic groups' }),
        },
      },
      GroupMember: {
        type: 'object',
        required: ['memberId', 'groupInstanceId', 'clientId', 'clientHost', 'sessionTimeoutMs', 'sessionExpiresInMs', 'upgraded', 'rebalanceTimeoutMs', 'assignment', 'memberEpoch', 'memberState', 'rackId', 'subscribedTopicNames', 'subscribedTopicRegex', 'targetAssignment', 'connectAssignment', 'streamsTasks'],
        description: 'A classic or consumer-group member; the consumer-group fields are null for classic members.',
        properties: {
          memberId: { type: 'string' },
          groupInstanceId: nullable({ type: 'string' }),
          clientId: { type: 'string' },
          clientHost: { type: 'string' },
          sessionTimeoutMs: nullable({ type: 'integer', description: 'Classic members (also inside a consumer group); null for consumer-protocol members' }),
          sessionExpiresInMs: nullable({ type: 'integer', minimum: 0, description: 'Until the member\'s session expires unless it heartbeats, on the server clock (a manual clock stands still until advanced); null without a session timer' }),
          upgraded: nullable({ type: 'boolean', description: 'Consumer groups: true for a consumer-protocol (KIP-848) member, false for a classic member inside the group; null in classic groups' }),
          rebalanceTimeoutMs: { type: 'integer' },
          assignment: nullable({ ...topicPartitions, description: 'Classic: the decoded ConsumerProtocol assignment (null when not readable). Consumer group: the owned partitions, including those pending revocation.' }),
          memberEpoch: nullable({ type: 'integer' }),
          memberState: nullable({ type: 'string', enum: ['stable', 'unrevoked_partitions', 'unreleased_partitions', 'unknown'] }),
          rackId: nullable({ type: 'string' }),
          subscribedTopicNames: nullable({ type: 'array', items: { type: 'string' } }),
          subscribedTopicRegex: nullable({ type: 'string' }),
          targetAssignment: nullable({ ...topicPartitions, description: 'Consumer group: the target assignment the member reconciles towards' }),
          streamsTasks: nullable({
            type: 'object',
            description: 'Streams-group members (KIP-1071) only: the process, the active and standby tasks (`<subtopology>_<partition>`) the member owns, and those of its target assignment',
            required: ['processId', 'active', 'standby', 'targetActive', 'targetStandby'],
            properties: {
              processId: { type: 'string' },
              active: { type: 'array', items: { type: 'string' } },
              standby: { type: 'array', items: { type: 'string' } },
              targetActive: { type: 'array', items: { type: 'string' } },
              targetStandby: { type: 'array', items: { type: 'string' } },
            },
          }),
          connectAssignment: nullable({
            type: 'object',
            description: 'Classic members of protocol type `connect` (Kafka Connect workers) only: the connectors and tasks their leader assigned them (ConnectProtocol V0, incremental cooperative V1/V2); null before their SyncGroup',
            required: ['version', 'error', 'leader', 'leaderUrl', 'configOffset', 'assigned', 'revoked', 'delayMs'],
            properties: {
              version: { type: 'integer' },
              error: { type: 'integer', description: "Connect's assignment error: 0 none, 1 the leader's config is behind" },
              leader: { type: 'string' },
              leaderUrl: { type: 'string' },
              configOffset: { type: 'integer' },
              assigned: { type: 'array', items: ref('ConnectTasks') },
              revoked: nullable({ type: 'array', items: ref('ConnectTasks'), description: 'From version 1: what the worker must stop' }),
              delayMs: nullable({ type: 'integer', description: 'From version 1: the delay before the leader rebalances again to place lost work' }),
            },
          }),
        },
      },
      ConnectTasks: {
        type: 'object',
        required: ['connector', 'runsConnector', 'tasks'],
        properties: { connector: { type: 'string' }, runsConnector: { type: 'boolean', description: 'The worker runs the connector itself (task id -1 on the wire)' }, tasks: { type: 'array', items: { type: 'integer' } } },
      },
      GroupOffset: {
        type: 'object',
        required: ['topic', 'partition', 'committedOffset', 'logEndOffset', 'lag', 'leaderEpoch', 'metadata', 'commitTimestamp', 'memberId'],
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          committedOffset: { type: 'integer' },
          logEndOffset: nullable({ type: 'integer' }),
          lag: nullable({ type: 'integer' }),
          leaderEpoch: { type: 'integer' },
          metadata: { type: 'string' },
          commitTimestamp: { type: 'string', format: 'date-time' },
          memberId: nullable({ type: 'string' }),
        },
      },
      PendingOffset: {
        type: 'object',
        required: ['topic', 'partition', 'offset', 'leaderEpoch', 'metadata', 'producerId', 'transactionalId'],
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          offset: { type: 'integer' },
          leaderEpoch: { type: 'integer' },
          metadata: { type: 'string' },
          producerId: { type: 'integer' },
          transactionalId: nullable({ type: 'string' }),
        },
      },
      Transaction: {
        type: 'object',
        required: transactionFields,
        properties: transactionProperties,
      },
      TransactionDescription: {
        type: 'object',
        required: [...transactionFields, 'pendingOffsets'],
        properties: {
          ...transactionProperties,
          pendingOffsets: {
            type: 'array',
            items: {
              type: 'object',
              required: ['groupId', 'topic', 'partition', 'offset', 'metadata'],
              properties: { groupId: { type: 'string' }, topic: { type: 'string' }, partition: { type: 'integer' }, offset: { type: 'integer' }, metadata: { type: 'string' } },
            },
          },
        },
      },
      GroupDescription: {
        type: 'object',
        required: ['groupId', 'type', 'state', 'protocolType', 'protocol', 'generationId', 'leaderId', 'groupEpoch', 'assignmentEpoch', 'assignor', 'members', 'offsets', 'uncommittedPartitions', 'pendingTransactionalOffsets', 'totalLag', 'sharePartitions', 'offsetsTopicPartition', 'coordinatorId'],
        properties: {
          groupId: { type: 'string' },
          type: { type: 'string', enum: ['classic', 'consumer', 'share', 'streams'] },
          state: { type: 'string' },
          protocolType: { type: 'string' },
          protocol: nullable({ type: 'string', description: 'Classic groups: the selected protocol' }),
          generationId: { type: 'integer', description: 'Classic groups: the generation (0 for a group known only by its offsets); -1 for consumer groups' },
          leaderId: nullable({ type: 'string' }),
          groupEpoch: nullable({ type: 'integer', description: 'Consumer groups: the group epoch' }),
          assignmentEpoch: nullable({ type: 'integer', description: 'Consumer groups: the target assignment epoch' }),
          assignor: nullable({ type: 'string', description: 'Consumer groups: the server-side assignor' }),
          members: { type: 'array', items: ref('GroupMember') },
          offsets: { type: 'array', items: ref('GroupOffset') },
          uncommittedPartitions: {
            type: 'array',
            description: 'The partitions members own without a committed offset, with their log-end offsets (kafka-consumer-groups --describe lists them with CURRENT-OFFSET and LAG "-"); empty for share groups',
            items: {
              type: 'object',
              required: ['topic', 'partition', 'logEndOffset', 'memberId'],
              properties: { topic: { type: 'string' }, partition: { type: 'integer' }, logEndOffset: nullable({ type: 'integer' }), memberId: { type: 'string' } },
            },
          },
          pendingTransactionalOffsets: { type: 'array', items: ref('PendingOffset'), description: 'Offsets of open transactions, pending until their COMMIT marker' },
          totalLag: { type: 'integer' },
          sharePartitions: nullable({ type: 'array', items: ref('SharePartition'), description: 'Share groups (null for the others): the share partitions the group has initialized' }),
          offsetsTopicPartition: { type: 'integer', description: "The __consumer_offsets partition holding the group's records (the group id's Java hash modulo offsets.topic.num.partitions)" },
          coordinatorId: { type: 'integer', description: 'The broker coordinating the group now (FindCoordinator\'s answer; -1 when every broker is down)' },
        },
      },
      SharePartition: {
        type: 'object',
        required: ['topic', 'partition', 'startOffset', 'endOffset', 'logEndOffset', 'lag', 'inFlight'],
        properties: {
          topic: { type: 'string' },
          partition: { type: 'integer' },
          startOffset: nullable({ type: 'integer', description: 'The share-partition start offset (SPSO)' }),
          endOffset: nullable({ type: 'integer', description: 'The share-partition end offset (SPEO): the last offset in flight, the start offset when none' }),
          logEndOffset: nullable({ type: 'integer' }),
          lag: nullable({ type: 'integer', description: 'Records from the start offset not yet acknowledged or archived' }),
          inFlight: {
            type: 'object',
            required: ['acquired', 'available', 'acknowledged', 'archived'],
            description: 'Records from the start offset to the end offset, by state',
            properties: { acquired: { type: 'integer' }, available: { type: 'integer' }, acknowledged: { type: 'integer' }, archived: { type: 'integer' } },
          },
        },
      },
      Clock: {
        type: 'object',
        required: ['mode', 'now', 'nowIso'],
        properties: { mode: { type: 'string', enum: ['system', 'manual', 'custom'] }, now: { type: 'integer', description: 'ms since the epoch' }, nowIso: { type: 'string', format: 'date-time' }, pendingTimers: nullable({ type: 'integer' }) },
      },
      ClockAdvance: {
        type: 'object',
        required: ['mode', 'now', 'nowIso', 'firedTimers'],
        properties: { mode: { type: 'string', enum: ['manual'] }, now: { type: 'integer' }, nowIso: { type: 'string', format: 'date-time' }, firedTimers: { type: 'integer' }, pendingTimers: nullable({ type: 'integer' }) },
      },
      ClusterBroker: { type: 'object', required: ['id', 'host', 'port', 'up'], properties: { id: { type: 'integer' }, host: { type: 'string' }, port: { type: 'integer' }, up: { type: 'boolean' } } },
      Cluster: {
        type: 'object',
        required: ['brokers', 'controllerId', 'coordinatorOverrides', 'transactionCoordinatorOverrides', 'leaderOverrides', 'loadInProgress'],
        properties: {
          brokers: { type: 'array', items: ref('ClusterBroker') },
          controllerId: { type: 'integer' },
          coordinatorOverrides: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Group id -> broker pinned by move-coordinator' },
          transactionCoordinatorOverrides: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Transactional id -> broker pinned by move-coordinator' },
          leaderOverrides: { type: 'array', items: { type: 'object', required: ['topic', 'partition', 'brokerId'], properties: { topic: { type: 'string' }, partition: { type: 'integer' }, brokerId: { type: 'integer' } } } },
          loadInProgress: {
            type: 'object',
            required: ['all', 'groups'],
            properties: { all: nullable({ type: 'string', format: 'date-time' }), groups: { type: 'object', additionalProperties: { type: 'string', format: 'date-time' } } },
          },
        },
      },
      CompactionSummary: { type: 'object', required: ['partitionsCleaned', 'recordsBefore', 'recordsAfter'], properties: { partitionsCleaned: { type: 'integer' }, recordsBefore: { type: 'integer' }, recordsAfter: { type: 'integer' } } },
      SweepResult: { type: 'object', required: ['expiredOffsets', 'deletedGroups'], properties: { expiredOffsets: { type: 'integer' }, deletedGroups: { type: 'array', items: { type: 'string' } } } },
    },
  },
} as const;
