/**
 * SocketReads on real loopback sockets: once stopped, bytes the peer sends stay in the kernel (no
 * 'data' event, nothing read) until `start`, when they arrive; a stop Node's own stream undid
 * meanwhile (reading stopped at its high-water mark, then resumed) does not stop it again by accident.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { SocketReads } from '../../src/server/socket-reads.js';

describe('SocketReads', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    while (cleanups.length) cleanups.pop()!();
  });

  /** A connected pair: `server` (accepted, flowing, its bytes collected in `received`) and `client`. */
  async function pair(): Promise<{ server: Socket; client: Socket; received: Buffer[]; listener: Server }> {
    const listener = createServer();
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const port = (listener.address() as { port: number }).port;
    const accepted = once(listener, 'connection');
    const client = connect({ port, host: '127.0.0.1' });
    const [server] = (await accepted) as [Socket];
    await once(client, 'connect').catch(() => {});
    const received: Buffer[] = [];
    server.on('data', (chunk: Buffer) => received.push(chunk));
    cleanups.push(() => {
      client.destroy();
      server.destroy();
      listener.close();
    });
    return { server, client, received, listener };
  }

  /**
   * Returns once the server's event loop has polled after `client`'s bytes were in its socket: a
   * round trip on a second connection written after them (its answer needs a later poll).
   */
  async function afterServerPolled(listener: Server): Promise<void> {
    const port = (listener.address() as { port: number }).port;
    const accepted = once(listener, 'connection');
    const probe = connect({ port, host: '127.0.0.1' });
    const [peer] = (await accepted) as [Socket];
    peer.on('data', (b: Buffer) => peer.write(b));
    probe.write('ping');
    await once(probe, 'data');
    probe.destroy();
    peer.destroy();
  }

  it('stopped: what the peer sends is not read until start, then it all arrives', async () => {
    const { server, client, received, listener } = await pair();
    const reads = new SocketReads(server);
    client.write('first');
    await once(server, 'data');
    reads.stop();
    expect(reads.isStopped).toBe(true);
    client.write('second');
    await afterServerPolled(listener);
    expect(Buffer.concat(received).toString()).toBe('first');
    expect(server.bytesRead).toBe(5);
    reads.start();
    expect(reads.isStopped).toBe(false);
    while (Buffer.concat(received).length < 11) await once(server, 'data');
    expect(Buffer.concat(received).toString()).toBe('firstsecond');
  });

  it('stop and start are idempotent, and start without stop does nothing', async () => {
    const { server, client, received } = await pair();
    const reads = new SocketReads(server);
    reads.start();
    reads.stop();
    reads.stop();
    reads.start();
    reads.start();
    client.write('abc');
    await once(server, 'data');
    expect(Buffer.concat(received).toString()).toBe('abc');
  });

  it('after Node itself stopped reading (a paused socket past its high-water mark), stop is a no-op and resume reads on', async () => {
    const { server, client, listener } = await pair();
    server.removeAllListeners('data');
    server.pause();
    const big = Buffer.alloc(server.readableHighWaterMark * 4, 1);
    client.write(big);
    // Node reads until its buffer passes the high-water mark, then stops reading the handle itself.
    while (server.readableLength < server.readableHighWaterMark) await afterServerPolled(listener);
    const reads = new SocketReads(server);
    reads.stop();
    expect(reads.isStopped).toBe(false);
    let total = 0;
    server.on('data', (chunk: Buffer) => (total += chunk.length));
    server.resume();
    while (total < big.length) await once(server, 'data');
    expect(total).toBe(big.length);
  });
});
