import { Command, Option } from 'commander';
import { FAULT_ACTIONS } from '../faults/actions/index.js';
import { orList } from '../util/or-list.js';
import { firstOutOfRangeNumber, outOfRangeMessage } from '../util/json-numbers.js';

/** Default admin API port of `kafka-mock-coordinator` (the command line; 0 picks a free one). */
export const DEFAULT_ADMIN_PORT = 9644;

const DEFAULT_ADMIN_URL = `http://127.0.0.1:${DEFAULT_ADMIN_PORT}`;

const collect = (v: string, prev: string[]): string[] => [...prev, v];

class CliError extends Error {}

async function call(adminUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(path, adminUrl.endsWith('/') ? adminUrl : `${adminUrl}/`);
  } catch {
    throw new CliError(`--admin must be a URL such as http://127.0.0.1:9644, got "${adminUrl}"`);
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        // From the environment, not a flag: a token on the command line shows in every process list.
        ...(process.env['KMC_ADMIN_TOKEN']?.trim() ? { authorization: `Bearer ${process.env['KMC_ADMIN_TOKEN'].trim()}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CliError(`cannot reach the admin API at ${adminUrl}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  if (!res.ok) {
    const message = (parsed as { message?: string } | null)?.message ?? res.statusText;
    throw new CliError(`${method} ${url.pathname}: ${res.status} ${message}`);
  }
  return parsed;
}

/**
 * Says on stderr which server a change went to (its Kafka bootstrap, from GET /health): an admin
 * port left to another server (a server of one's own that failed to start because the port was
 * taken) would otherwise take the change silently (new-user trial 24). Best effort: nothing when
 * the health check fails.
 */
async function noteServer(adminUrl: string, what: string): Promise<void> {
  try {
    const health = (await call(adminUrl, 'GET', 'health')) as { bootstrap?: string } | null;
    if (health?.bootstrap) process.stderr.write(`kafka-mock-coordinator: ${what} on the server at ${health.bootstrap} (admin API ${adminUrl})\n`);
  } catch {
    // the change itself was made and printed
  }
}

function print(value: unknown): void {
  if (value !== null && value !== undefined) process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

async function run(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof CliError) && !(err instanceof SyntaxError)) throw err;
    process.stderr.write(`kafka-mock-coordinator: ${err.message}\n`);
    process.exitCode = 1;
  }
}

function int(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw new CliError(`${name} expects a non-negative integer, got "${value}"`);
  return Number(value);
}

interface AddOptions {
  admin: string;
  json?: string;
  id?: string;
  description?: string;
  api?: string;
  minVersion?: string;
  maxVersion?: string;
  group?: string;
  topic?: string;
  partition: string[];
  clientId?: string;
  memberId?: string;
  transactionalId?: string;
  brokerId?: string;
  nth?: string;
  times?: string;
  duration?: string;
  /** The action flags (`--error`, `--delay`, ...: one per fault action), by commander's attribute name. */
  [actionFlag: string]: string | string[] | boolean | undefined;
}

/** The `faults add` flag of each fault action, in the table's order: its option's attribute name and long flag. */
const ACTION_FLAGS = FAULT_ACTIONS.map((definition) => {
  const option = new Option(definition.flag.flags);
  return { definition, key: option.attributeName(), name: option.long! };
});

/** The one action the flags give, as rule JSON; `--delay` alongside an action that takes `delayMs` is that delay. */
function actionFromFlags(o: AddOptions): object {
  const valueOf = (key: string): string | true | undefined => o[key] as string | true | undefined;
  const delay = ACTION_FLAGS.find((a) => a.definition.flag.alsoDelayMs);
  const delayValue = delay ? valueOf(delay.key) : undefined;
  const delayMs = delayValue !== undefined ? int(String(delayValue), delay!.name) : undefined;
  const given = ACTION_FLAGS.filter((a) => valueOf(a.key) !== undefined);
  const chosen = given.length > 1 ? given.filter((a) => !a.definition.flag.alsoDelayMs) : given;
  if (chosen.length !== 1) {
    const withDelay = ACTION_FLAGS.filter((a) => 'delayMs' in a.definition.fields).map((a) => a.name);
    throw new CliError(`give exactly one action: ${orList(ACTION_FLAGS.map((a) => a.name))}${delay ? ` (${delay.name} may accompany ${orList(withDelay)})` : ''}`);
  }
  const { definition, key } = chosen[0]!;
  return definition.flag.action(valueOf(key)!, { delayMs, int });
}

/**
 * The match fields that name an id (src/faults/name-match.ts): `--group g1` matches that group,
 * `--group-prefix shop-` every group whose id starts with `shop-` (ids made at run time, such as
 * Kafka Streams' transactional ids), as `"group": {"prefix": "shop-"}` in a rule's JSON.
 */
const ID_MATCH_FLAGS = [
  { field: 'group', flag: 'group', value: '<id>', help: 'group id' },
  { field: 'topic', flag: 'topic', value: '<name>', help: 'topic (per-partition APIs fail only its partitions)' },
  { field: 'clientId', flag: 'client-id', value: '<id>', help: 'client id' },
  { field: 'memberId', flag: 'member-id', value: '<id>', help: 'member id' },
  { field: 'transactionalId', flag: 'transactional-id', value: '<id>', help: 'transactional id' },
] as const;

/** Builds a rule (the JSON `POST /faults` takes) from `faults add` flags. */
export function ruleFromFlags(o: AddOptions): Record<string, unknown> {
  if (o.json !== undefined) {
    let rule: Record<string, unknown>;
    try {
      rule = JSON.parse(o.json) as Record<string, unknown>;
    } catch (err) {
      throw new CliError(`--json: ${(err as Error).message}`);
    }
    // Sent on as JSON.stringify writes it, a number JSON.parse rounded would reach the server rounded
    // (or as null for Infinity): refused here as written, as POST /faults refuses it.
    const outOfRange = firstOutOfRangeNumber(o.json);
    if (outOfRange !== null) throw new CliError(`--json: ${outOfRangeMessage(outOfRange, 'the rule')}`);
    return rule;
  }
  const match: Record<string, unknown> = {};
  if (o.api !== undefined) match['api'] = o.api;
  if (o.minVersion !== undefined) match['minVersion'] = int(o.minVersion, '--min-version');
  if (o.maxVersion !== undefined) match['maxVersion'] = int(o.maxVersion, '--max-version');
  for (const { field, flag } of ID_MATCH_FLAGS) {
    const exact = o[field] as string | undefined;
    const prefix = o[`${field}Prefix`] as string | undefined;
    if (exact !== undefined && prefix !== undefined) throw new CliError(`give --${flag} or --${flag}-prefix, not both`);
    if (exact !== undefined) match[field] = exact;
    if (prefix !== undefined) match[field] = { prefix };
  }
  const partitions = o.partition.flatMap((p) => p.split(',')).filter((p) => p !== '');
  if (partitions.length > 0) match['partitions'] = partitions.map((p) => int(p, '--partition'));
  if (o.brokerId !== undefined) match['brokerId'] = int(o.brokerId, '--broker-id');
  if (o.nth !== undefined) match['nth'] = int(o.nth, '--nth');

  const rule: Record<string, unknown> = { match, action: actionFromFlags(o) };
  if (o.id !== undefined) rule['id'] = o.id;
  if (o.description !== undefined) rule['description'] = o.description;
  if (o.times !== undefined) rule['times'] = o.times === 'unlimited' ? 'unlimited' : int(o.times, '--times');
  if (o.duration !== undefined) rule['durationMs'] = int(o.duration, '--duration');
  return rule;
}

function adminOption(): Option {
  return new Option('--admin <url>', 'admin API of the running server').env('KMC_ADMIN_URL').default(DEFAULT_ADMIN_URL);
}

/** `cluster ...`: the simulated cluster's actions (admin API `/cluster`). */
function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('simulated brokers of a running server (--brokers N): move coordinators and leaders, stop and start brokers (admin API)');
  cluster
    .command('describe')
    .description('brokers (up or down), moved coordinators and leaders, load windows (JSON)')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'GET', 'cluster'))));
  cluster
    .command('move-coordinator')
    .description("make a broker the coordinator of a group or a transactional id; the old one answers NOT_COORDINATOR")
    .option('--group <id>', 'group id')
    .option('--transactional-id <id>', 'transactional id (instead of --group)')
    .requiredOption('--broker <id>', 'new coordinator')
    .addOption(adminOption())
    .action((o: { admin: string; group?: string; transactionalId?: string; broker: string }) =>
      run(async () => {
        if ((o.group === undefined) === (o.transactionalId === undefined)) throw new CliError('give --group or --transactional-id, one of them');
        const key = o.group !== undefined ? { groupId: o.group } : { transactionalId: o.transactionalId };
        print(await call(o.admin, 'POST', 'cluster/move-coordinator', { ...key, brokerId: int(o.broker, '--broker') }));
      }),
    );
  cluster
    .command('load-in-progress')
    .description('the coordinator answers COORDINATOR_LOAD_IN_PROGRESS for a while (real time; classic Heartbeat: NONE)')
    .option('--group <id>', 'this group')
    .option('--all', 'every group')
    .requiredOption('--duration <ms>', 'how long (0 ends it)')
    .addOption(adminOption())
    .action((o: { admin: string; group?: string; all?: boolean; duration: string }) =>
      run(async () => {
        if ((o.group === undefined) === !o.all) throw new CliError('give --group <id> or --all');
        const body = o.all ? { all: true, durationMs: int(o.duration, '--duration') } : { groupId: o.group, durationMs: int(o.duration, '--duration') };
        print(await call(o.admin, 'POST', 'cluster/coordinator-load', body));
      }),
    );
  cluster
    .command('stop-broker')
    .description('take a broker down: its listener closes, connections drop, partitions and groups fail over')
    .argument('<brokerId>')
    .addOption(adminOption())
    .action((id: string, o: { admin: string }) => run(async () => print(await call(o.admin, 'POST', `cluster/brokers/${int(id, 'brokerId')}/stop`))));
  cluster
    .command('start-broker')
    .description('bring a stopped broker back on its port')
    .argument('<brokerId>')
    .addOption(adminOption())
    .action((id: string, o: { admin: string }) => run(async () => print(await call(o.admin, 'POST', `cluster/brokers/${int(id, 'brokerId')}/start`))));
  cluster
    .command('move-leader')
    .description('make a broker the leader of a partition; the old one answers NOT_LEADER_OR_FOLLOWER')
    .requiredOption('--topic <name>', 'topic')
    .requiredOption('--partition <n>', 'partition')
    .requiredOption('--broker <id>', 'new leader')
    .addOption(adminOption())
    .action((o: { admin: string; topic: string; partition: string; broker: string }) =>
      run(async () => print(await call(o.admin, 'POST', 'cluster/move-leader', { topic: o.topic, partition: int(o.partition, '--partition'), brokerId: int(o.broker, '--broker') }))),
    );
}

/**
 * `--admin <url>` also before the command (`kafka-mock-coordinator --admin URL faults list`): a
 * hidden root option (after `--no-admin`, so serving still defaults to an admin API) whose value
 * goes to the command run, unless that command was given its own. Commander lets a root option
 * appear anywhere, so the root takes `faults list --admin URL` too: handed on the same way. For a
 * command without `--admin` (dump-log, groups), the error commander would have given.
 */
function acceptAdminBeforeCommand(program: Command): void {
  program.addOption(new Option('--admin <url>', 'admin API of the running server (for the admin commands)').hideHelp());
  program.hook('preAction', (_program, action) => {
    const url: unknown = program.getOptionValue('admin');
    if (action === program || typeof url !== 'string') return;
    if (!action.options.some((o) => o.attributeName() === 'admin')) action.error(`error: unknown option '--admin' (it names the admin API for faults, cluster, transactions, clock, requests)`);
    action.setOptionValueWithSource('admin', url, 'cli');
  });
}

/** Adds `faults ...`, `requests`, `clock ...` and `cluster ...`: control commands that talk to a running server's admin API. */
export function registerControlCommands(program: Command): void {
  acceptAdminBeforeCommand(program);
  registerClusterCommands(program);

  const faults = program.command('faults').description('add, list, wait for and remove fault rules of a running server (admin API)');

  const add = faults
    .command('add')
    .description('add a fault rule; prints it as JSON (e.g. faults add --api OffsetCommit --group g1 --error REBALANCE_IN_PROGRESS --times 3)')
    .addOption(adminOption())
    .option('--json <rule>', 'the whole rule as JSON (instead of the flags below)')
    .option('--id <id>', 'rule id (default: generated)')
    .option('--description <text>', 'free text')
    .option('--api <name|key>', 'match: API name (OffsetCommit) or key (8)')
    .option('--min-version <v>', 'match: lowest request version')
    .option('--max-version <v>', 'match: highest request version');
  for (const { flag, value, help } of ID_MATCH_FLAGS) {
    add.option(`--${flag} ${value}`, `match: ${help}`).option(`--${flag}-prefix <prefix>`, `match: every ${help.replace(/ \(.*$/, '')} starting with <prefix>`);
  }
  add
    .option('--partition <n>', 'match: partition (repeatable or comma-separated; per-partition APIs fail only these)', collect, [] as string[])
    .option('--broker-id <id>', 'match: broker id')
    .option('--nth <n>', 'match: fire from the Nth matching request on');
  for (const { flag } of FAULT_ACTIONS) add.option(flag.flags, flag.help);
  add
    .option('--times <n|unlimited>', 'lifetime: firings (default 1; --errors: list length)')
    .option('--duration <ms>', 'lifetime: stop firing after ms')
    .action((o: AddOptions) =>
      run(async () => {
        const rule = (await call(o.admin, 'POST', 'faults', ruleFromFlags(o))) as { id?: string };
        print(rule);
        await noteServer(o.admin, `fault rule ${rule.id ?? '?'} added`);
      }),
    );

  faults
    .command('list')
    .description('list fault rules with their firing counts (JSON)')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'GET', 'faults'))));

  faults
    .command('get')
    .description('one fault rule (JSON)')
    .argument('<id>')
    .addOption(adminOption())
    .action((id: string, o: { admin: string }) => run(async () => print(await call(o.admin, 'GET', `faults/${encodeURIComponent(id)}`))));

  faults
    .command('remove')
    .description('remove a fault rule (prints {"removedId": id}; `clear` prints {"removed": count})')
    .argument('<id>')
    .addOption(adminOption())
    .action((id: string, o: { admin: string }) =>
      run(async () => {
        await call(o.admin, 'DELETE', `faults/${encodeURIComponent(id)}`);
        print({ removedId: id });
      }),
    );

  faults
    .command('clear')
    .description('remove every fault rule (prints {"removed": count}, as DELETE /faults)')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'DELETE', 'faults'))));

  faults
    .command('wait')
    .description('wait until a rule has fired N times (exit 1 on timeout)')
    .argument('<id>')
    .requiredOption('--count <n>', 'total firings to wait for')
    .option('--timeout <ms>', 'give up after ms', '30000')
    .addOption(adminOption())
    .action((id: string, o: { admin: string; count: string; timeout: string }) =>
      run(async () => print(await call(o.admin, 'POST', `faults/${encodeURIComponent(id)}/wait`, { count: int(o.count, '--count'), timeoutMs: int(o.timeout, '--timeout') }))),
    );

  program
    .command('requests')
    .description('recent requests the server received (api, version, client id, group, error returned) as JSON')
    .option('--api <name|key>', 'only this API')
    .option('--group <id>', 'only requests naming this group')
    .option('--client-id <id>', 'only this client id')
    .option('--transactional-id <id>', 'only requests naming this transactional id')
    .option('--broker-id <id>', 'only requests this broker received (--brokers N)')
    .option('--limit <n>', 'the newest N')
    .option('--failed', 'only requests that failed: an error answered, a fault rule fired, closed (the last 1000 kept beyond the log)')
    .option('--error <name>', 'only requests answered with this Kafka error (as UNKNOWN_MEMBER_ID), the failures kept beyond the log included')
    .addOption(adminOption())
    .action((o: { admin: string; api?: string; group?: string; clientId?: string; transactionalId?: string; brokerId?: string; limit?: string; failed?: boolean; error?: string }) =>
      run(async () => {
        const q = new URLSearchParams();
        if (o.api) q.set('api', o.api);
        if (o.group !== undefined) q.set('group', o.group);
        if (o.clientId !== undefined) q.set('clientId', o.clientId);
        if (o.transactionalId !== undefined) q.set('transactionalId', o.transactionalId);
        if (o.brokerId !== undefined) q.set('brokerId', String(int(o.brokerId, '--broker-id')));
        if (o.limit !== undefined) q.set('limit', String(int(o.limit, '--limit')));
        if (o.failed === true) q.set('failed', 'true');
        if (o.error !== undefined) q.set('error', o.error);
        print(await call(o.admin, 'GET', `requests${q.size > 0 ? `?${q}` : ''}`));
      }),
    );

  const transactions = program.command('transactions').description("a running server's transactions and the offsets they sent that await their COMMIT (admin API)");
  transactions
    .command('list')
    .description('every transactional id: state, producer id and epoch, partitions (JSON)')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'GET', 'transactions'))));
  transactions
    .command('describe')
    .description("one transactional id, with the offsets it sent that are pending until its marker (JSON)")
    .argument('<transactional-id>')
    .addOption(adminOption())
    .action((id: string, o: { admin: string }) => run(async () => print(await call(o.admin, 'GET', `transaction?transactionalId=${encodeURIComponent(id)}`))));

  const clock = program.command('clock').description("read or advance a running server's clock (admin API)");
  clock
    .command('now')
    .description('the server clock (JSON)')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'GET', 'clock'))));
  clock
    .command('advance')
    .description('advance a manual clock by ms, firing what falls due (the server must run with --clock manual)')
    .argument('<ms>')
    .addOption(adminOption())
    .action((ms: string, o: { admin: string }) => run(async () => print(await call(o.admin, 'POST', 'clock/advance', { ms: int(ms, 'ms') }))));

  program
    .command('sweep-offsets')
    .description('run the offsets retention sweep now (admin API); prints what expired')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'POST', 'offsets/sweep'))));

  program
    .command('compact-offsets')
    .description('compact __consumer_offsets now (admin API), whatever the dirty ratio; prints what was cleaned')
    .addOption(adminOption())
    .action((o: { admin: string }) => run(async () => print(await call(o.admin, 'POST', 'offsets/compact'))));

  program
    .command('expire-session')
    .description("expire one member's session now, as if it stopped heartbeating (the others keep theirs); prints the group's type")
    .requiredOption('--group <id>', 'the group')
    .requiredOption('--member-id <id>', 'the member')
    .addOption(adminOption())
    .action((o: { admin: string; group: string; memberId: string }) =>
      run(async () => print(await call(o.admin, 'POST', 'group/expire-session', { groupId: o.group, memberId: o.memberId }))),
    );
}
