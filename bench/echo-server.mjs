// The floor the benchmarks compare against: a bare Node.js TCP server that splits Kafka frames
// and answers every request with one canned response (OffsetCommit v8 for the commit benchmark,
// Produce or Fetch for the produce/fetch one; correlation id patched in), doing no other work. Run as a child process like ours:
// `node bench/echo-server.mjs <response-template-hex | @file-of-hex>`; prints `ready on 127.0.0.1:<port>`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A template too large for one argument (Linux caps one at 128 KiB) comes as `@<file of hex>`.
const arg = process.argv[2] ?? '';
const template = Buffer.from(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg, 'hex');
if (template.length < 8) throw new Error('usage: node bench/echo-server.mjs <response frame as hex | @file>');

const server = createServer((socket) => {
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    let at = 0;
    socket.cork();
    while (buffered.length - at >= 4) {
      const size = buffered.readInt32BE(at);
      if (buffered.length - at < 4 + size) break;
      const response = Buffer.from(template);
      // Request header: size, api key, api version, correlation id.
      response.writeInt32BE(buffered.readInt32BE(at + 8), 4);
      socket.write(response);
      at += 4 + size;
    }
    socket.uncork();
    buffered = buffered.subarray(at);
  });
  socket.on('error', () => {});
});
// The same accept queue as ours (src/server/server.ts LISTEN_BACKLOG): Node's default of 511 would
// let a burst of a thousand connections overflow it and retry their SYN a second later.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  console.log(`echo server ready on 127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
