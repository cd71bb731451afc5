// What one fdatasync of a small append costs this process, by the way Node can call it (issue #16):
// appends 100 bytes to a file and fdatasyncs it, BENCH_SYNCS times per style, and prints the process
// CPU (user + system, all threads) and the wall time per sync. Styles: `fs.fdatasyncSync` on the
// calling thread; `fs.fdatasync` with a callback (libuv's thread pool: what storage/file-io.ts does),
// one at a time and 3 at once (storage/sync-pipeline.ts's limit); a FileHandle's `datasync()`.
// Env: BENCH_SYNCS (2000), BENCH_DATA_DIR (the OS temp dir). Run twice, styles interleaved.
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const n = Number(process.env.BENCH_SYNCS ?? 2000);
const dir = fs.mkdtempSync(join(process.env.BENCH_DATA_DIR || tmpdir(), 'kmc-fdatasync-'));
const file = join(dir, 'segment.log');
const bytes = Buffer.alloc(100, 7);
const syncCb = (fd) => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

const styles = {
  'fdatasyncSync': async (fd, append) => { for (let i = 0; i < n; i++) { append(); fs.fdatasyncSync(fd); } },
  'fdatasync callback': async (fd, append) => { for (let i = 0; i < n; i++) { append(); await syncCb(fd); } },
  'fdatasync callback x3': async (fd, append) => {
    let i = 0;
    const one = async () => { while (i++ < n) { append(); await syncCb(fd); } };
    await Promise.all([one(), one(), one()]);
  },
  'FileHandle.datasync': async (fd, append) => {
    const handle = await fs.promises.open(file, 'r+');
    for (let i = 0; i < n; i++) { append(); await handle.datasync(); }
    await handle.close();
  },
};

for (let round = 0; round < 2; round++) {
  for (const [name, run] of Object.entries(styles)) {
    const fd = fs.openSync(file, 'w');
    let position = 0;
    const append = () => { fs.writeSync(fd, bytes, 0, bytes.length, position); position += bytes.length; };
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await run(fd, append);
    const wallUs = Number(process.hrtime.bigint() - t0) / 1e3;
    const cpu = process.cpuUsage(cpu0);
    fs.closeSync(fd);
    const per = (us) => (us / n).toFixed(1);
    console.log(`${name.padEnd(22)} CPU ${per(cpu.user + cpu.system)} µs/sync (user ${per(cpu.user)}, system ${per(cpu.system)}), wall ${per(wallUs)} µs/sync`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
