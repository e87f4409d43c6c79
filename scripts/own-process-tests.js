#!/usr/bin/env node
// Runs the test files of vitest's `own-process` project (vitest.config.ts), after the rest of the
// suite. Node has aborted in a Temporal workflow thread of one of them under a loaded machine ("async
// hook stack has become corrupted", a native crash no test can catch; docs/development.md#a-native-abort).
// When that abort is why the run failed, this says so loudly and runs the files once more, and that
// run's result is final; any other failure fails at once.
const { spawn } = require('node:child_process');

const ABORT = 'async hook stack has become corrupted';

function run() {
  return new Promise((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '--project', 'own-process'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let seen = '';
    const tee = (stream, out) =>
      stream.on('data', (chunk) => {
        out.write(chunk);
        seen = (seen + chunk.toString()).slice(-200_000);
      });
    tee(child.stdout, process.stdout);
    tee(child.stderr, process.stderr);
    child.on('close', (code) => resolve({ code: code ?? 1, aborted: seen.includes(ABORT) }));
  });
}

(async () => {
  const first = await run();
  if (first.code === 0 || !first.aborted) process.exit(first.code);
  console.error(
    `\n*** Node aborted in a Temporal workflow thread ("${ABORT}"): a known native crash under load ` +
      '(docs/development.md#a-native-abort). Running the own-process files once more. ***\n',
  );
  process.exit((await run()).code);
})();
