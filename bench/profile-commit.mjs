// A CPU profile of the OffsetCommit path: starts our server with `node --cpu-prof`, drives one
// load (BENCH_LOADS' first entry, default 16x1) with flush policy BENCH_POLICIES' first entry
// (default never) for BENCH_COMMIT_SECONDS, stops it, and prints the functions with the most self
// time and the files with the most inclusive time (bench/profile-lib.mjs). The .cpuprofile stays in .tmp/profiles/ for
// Chrome DevTools. `npm run build` first.
import { BenchClient, envInt, envList } from './lib.mjs';
import { startProfiledServer, summarizeProfile } from './profile-lib.mjs';

const [loadText] = envList('BENCH_LOADS', ['16x1']);
const [policy] = envList('BENCH_POLICIES', ['never']);
const seconds = envInt('BENCH_COMMIT_SECONDS', 5);
const [connections, depth] = loadText.split('x').map(Number);
const { port, profileDir, stop } = await startProfiledServer(`commit-${policy}-${loadText}`, policy);
const admin = await BenchClient.connect(port);
await admin.send(19, 5, { topics: [{ name: 't', numPartitions: connections, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
admin.close();
const clients = await Promise.all(Array.from({ length: connections }, () => BenchClient.connect(port)));
let done = false;
let commits = 0;
const loops = [];
clients.forEach((c, p) => {
  let offset = 0n;
  for (let d = 0; d < depth; d++) {
    loops.push((async () => {
      while (!done) {
        await c.send(8, 8, { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 't', partitions: [{ partitionIndex: p, committedOffset: ++offset, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        commits++;
      }
    })());
  }
});
await new Promise((r) => setTimeout(r, seconds * 1000));
done = true;
await Promise.all(loops);
for (const c of clients) c.close();
await stop();

console.log(`${commits} commits in ${seconds} s (${loadText}, flush ${policy})`);
summarizeProfile(profileDir, 'commitOffsets');
