#!/usr/bin/env node
// The package's bin. The bundle replaces tsc's output of this file with one that takes runCli from
// the package's program, run from a V8 code cache (scripts/code-cache.mjs); what it runs is the same.
import { runCli } from './cli-program.js';

await runCli();
