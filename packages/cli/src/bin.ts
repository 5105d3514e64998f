#!/usr/bin/env node
import { processIo } from './cliIo.js';
import { runCli } from './main.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
