// A CPU profile of the Produce path (or, with BENCH_PROFILE_KIND=fetch, the Fetch path) under
// bench/produce-throughput.mjs' load: starts our server with `node --cpu-prof` (flush policy
// never), creates its topic, produces for BENCH_PRODUCE_SECONDS (and for fetch, then reads the
// log back for as long), stops it, prints the server's CPU per MB and the profile's summary
// (bench/profile-lib.mjs). Settings as produce-throughput.mjs'. `npm run build` first.
import { fmt } from './lib.mjs';
import { createTopic } from './peers.mjs';
import { TOPIC, batchOf, fetchWindow, produceBenchOptions, produceWindow } from './produce-throughput.mjs';
import { startProfiledServer, summarizeProfile } from './profile-lib.mjs';

const kind = process.env.BENCH_PROFILE_KIND === 'fetch' ? 'fetch' : 'produce';
const options = produceBenchOptions();
const batch = batchOf(options);
const server = await startProfiledServer(`${kind}`, 'never');
await createTopic(server.port, TOPIC, 1);
const windows = [await produceWindow(server, batch, options)];
if (kind === 'fetch') windows.push(await fetchWindow(server, options));
await server.stop();
const w = windows.at(-1);
console.log(`${kind}: ${fmt(w.bytes / 1e6 / (w.elapsedMs / 1000), 1)} MB/s, server ${fmt(w.serverCpuMs / (w.bytes / 1e6), 2)} ms CPU/MB (profiling on)`);
summarizeProfile(server.profileDir, kind === 'fetch' ? 'buildResponse' : 'appendProduced');
