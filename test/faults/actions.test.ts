/**
 * Every fault action in the table (src/faults/actions/) is reachable from every surface: parsed
 * from JSON, described by the OpenAPI document, settable with `faults add` flags (through the
 * admin API), and applied by the registry to a real request.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Command } from 'commander';
import { FAULT_ACTIONS, type FaultActionType } from '../../src/faults/actions/index.js';
import { normalizeRule } from '../../src/faults/index.js';
import { OPENAPI_DOCUMENT } from '../../src/admin/openapi.js';
import { registerControlCommands } from '../../src/admin/cli-commands.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const heartbeat = { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null };
const send = (client: RawClient) => client.send(12, 4, heartbeat, 'actions-test');

/** Per action: `faults add` flags, the JSON they stand for, and what a Heartbeat then gets. */
const ACTIONS: Record<FaultActionType, { flags: string[]; json: object; effect(server: Server, baseline: unknown): Promise<void> }> = {
  error: {
    flags: ['--error', 'REBALANCE_IN_PROGRESS'],
    json: { type: 'error', error: 'REBALANCE_IN_PROGRESS' },
    async effect(server) {
      expect(await send(await connect(server))).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
    },
  },
  errors: {
    flags: ['--errors', 'NOT_COORDINATOR,ILLEGAL_GENERATION', '--delay', '1'],
    json: { type: 'errors', errors: ['NOT_COORDINATOR', 'ILLEGAL_GENERATION'], delayMs: 1 },
    async effect(server) {
      const client = await connect(server);
      expect([(await send(client)).errorCode, (await send(client)).errorCode]).toEqual([ErrorCode.NOT_COORDINATOR, ErrorCode.ILLEGAL_GENERATION]);
    },
  },
  delay: {
    flags: ['--delay', '1'],
    json: { type: 'delay', ms: 1 },
    async effect(server, baseline) {
      expect(await send(await connect(server))).toEqual(baseline);
    },
  },
  hang: {
    flags: ['--hang', '1'],
    json: { type: 'hang', closeAfterMs: 1 },
    async effect(server) {
      await expect(send(await connect(server))).rejects.toThrow('connection closed before a response');
    },
  },
  close: {
    flags: ['--close', 'before'],
    json: { type: 'close', when: 'before' },
    async effect(server) {
      await expect(send(await connect(server))).rejects.toThrow('connection closed before a response');
    },
  },
  throttle: {
    flags: ['--throttle', '1'],
    json: { type: 'throttle', ms: 1 },
    async effect(server, baseline) {
      expect(await send(await connect(server))).toEqual({ ...(baseline as object), throttleTimeMs: 1 });
    },
  },
};

const clients: RawClient[] = [];
async function connect(server: Server): Promise<RawClient> {
  const client = await RawClient.connect(server.port);
  clients.push(client);
  return client;
}

/** Runs `kafka-mock-coordinator <args>` in this process; returns what it printed. */
async function cli(args: string[]): Promise<unknown> {
  const program = new Command().exitOverride();
  registerControlCommands(program);
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    write.mockRestore();
  }
  return JSON.parse(out);
}

describe('fault actions', () => {
  let server: Server;
  let baseline: unknown;
  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0, adminHost: '127.0.0.1' });
    baseline = await send(await connect(server));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.stop();
  });

  it('has a test for every action in the table', () => {
    expect(Object.keys(ACTIONS).sort()).toEqual(FAULT_ACTIONS.map((a) => a.type).sort());
  });

  it.each(FAULT_ACTIONS.map((a) => a.type))('%s: JSON, OpenAPI, CLI and registry', async (type) => {
    const { flags, json, effect } = ACTIONS[type];
    // JSON: the rule parses.
    const parsed = normalizeRule(JSON.parse(JSON.stringify({ match: { api: 'Heartbeat' }, action: json })));
    expect(parsed.action.type).toBe(type);

    // OpenAPI: the action has its schema, which names every field the JSON gives.
    const schemas = OPENAPI_DOCUMENT.components.schemas;
    const schema = schemas.FaultAction.oneOf.find((s) => s.title === type)!;
    expect(schema.properties.type).toEqual({ type: 'string', enum: [type] });
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(Object.keys(json)));
    expect(Object.keys(json)).toEqual(expect.arrayContaining(schema.required));
    expect(schemas.FaultRule.properties.action.properties.type.enum).toContain(type);

    // CLI: `faults add` flags make the same rule, through the admin API.
    const rule = (await cli(['faults', 'add', '--admin', server.admin!.url, '--api', 'Heartbeat', '--id', type, ...flags])) as { action: unknown };
    expect(rule.action).toEqual(parsed.action);

    // Registry: the rule fires on a real request with the action's effect.
    await effect(server, baseline);
    expect(server.faults.get(type)!.fired).toBe(type === 'errors' ? 2 : 1);
    server.faults.remove(type);
  });
});
