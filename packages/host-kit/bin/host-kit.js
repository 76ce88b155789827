#!/usr/bin/env node
// The CLI lives in dist/, built by `tsup`. This file is committed so that the bin
// exists when a fresh checkout's `pnpm install` links it, before anything is built
// (pnpm warned "Failed to create bin" otherwise).
import '../dist/cli.js';
