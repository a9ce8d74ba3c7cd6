#!/usr/bin/env node
import 'reflect-metadata';
import { processIo } from './cli-io';
import { run } from './run';

// The exit code is set, not forced: `mmmq broker` keeps running, and piped output is written out in full.
void run(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
