import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

export interface CliServer {
  process: ChildProcess;
  bootstrap: string;
  port: number;
  /** Every stdout line so far. */
  lines: string[];
  /**
   * Resolves with the exit code once the process exited and its output was read to the end
   * ('close'): its 'exit' can come before the last lines are read, which a test then misses.
   */
  ended: Promise<number | null>;
}

/** Starts the built command line (`dist/cli.cjs`, the bin) and resolves at its ready line. */
export async function startCli(args: string[], env: NodeJS.ProcessEnv = {}, stdin: 'ignore' | 'pipe' = 'ignore'): Promise<CliServer> {
  // Test servers run in parallel: none may take the default admin port 9644 (the one that lost the
  // race would log a warning that tests counting warnings would see). Tests that want the admin
  // API pass --admin-port 0.
  if (!args.some((a) => a === '--admin-port' || a === '--no-admin')) args = [...args, '--no-admin'];
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: [stdin, 'pipe', 'pipe'] });
  const ended = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    // A backstop for a server that never gets ready, not a speed limit: a loaded machine may take long.
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), 120_000);
    child.on('exit', (code) => reject(new Error(`exited with ${code} before ready; stderr: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const match = /ready on ([^"\s]+):(\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ process: child, bootstrap: `${match[1]}:${match[2]}`, port: Number(match[2]), lines, ended });
      }
    });
  });
}

/** Sends `signal` (unless it exited already) and resolves with the exit code once its output was read to the end. */
export async function kill(server: CliServer, signal: NodeJS.Signals): Promise<number | null> {
  if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill(signal);
  return server.ended;
}
