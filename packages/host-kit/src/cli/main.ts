#!/usr/bin/env node
import { runCli } from './run.js';

process.exitCode = runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
});
