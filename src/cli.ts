#!/usr/bin/env node
// The package's bin. The bundle replaces tsc's output of this file with a loader that runs
// cli-program from a V8 code cache (scripts/cli-code-cache.mjs); what it runs is the same.
import { runCli } from './cli-program.js';

await runCli();
