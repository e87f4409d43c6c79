#!/usr/bin/env node
// The waveloop CLI: runs the compiled client (npm install builds it through the `prepare` script).
require('../dist/src/cli/program.js').runCli();
