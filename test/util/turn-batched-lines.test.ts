/**
 * The server's log destination (util/turn-batched-lines.ts): the lines of one event-loop turn
 * reach the output in one write, in order, in that turn's check phase.
 */
import { describe, expect, it } from 'vitest';
import { turnBatchedLines } from '../../src/util/turn-batched-lines.js';

describe('turnBatchedLines', () => {
  it('writes the lines of one turn together, in order, once the turn reaches its check phase', async () => {
    const writes: string[] = [];
    const dest = turnBatchedLines({ write: (s: string) => void writes.push(s) });
    dest.write('{"msg":"a"}\n');
    dest.write('{"msg":"b"}\n');
    dest.write('{"msg":"c"}\n');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"msg":"a"}\n{"msg":"b"}\n{"msg":"c"}\n']);
    dest.write('{"msg":"d"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"msg":"a"}\n{"msg":"b"}\n{"msg":"c"}\n', '{"msg":"d"}\n']);
  });

  it('flush writes what waits at once, and nothing when nothing waits', () => {
    const writes: string[] = [];
    const dest = turnBatchedLines({ write: (s: string) => void writes.push(s) });
    dest.flush();
    expect(writes).toEqual([]);
    dest.write('{"msg":"stopped"}\n');
    dest.flush();
    expect(writes).toEqual(['{"msg":"stopped"}\n']);
  });
});
