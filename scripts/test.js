#!/usr/bin/env node
// `npm test`: the build (which type-checks every TypeScript file, tests and bench too), then the
// checks (lint, formatting, import cycles) side by side with vitest's suite, then the files of
// vitest's `own-process` project on their own. The suite streams its output; each check prints its
// output whole when it ends. Exits 1 if anything failed, naming what.
//
// The build comes first because the tests run the built CLI (dist/); it is incremental, so after
// `npm install` (whose `prepare` built it) only what changed is checked again. The checks run
// beside the suite rather than before it: each mostly waits on one core, and the suite leaves part
// of the two cores idle while its tests wait on timers and child processes.
//
// Node has aborted in a Temporal workflow thread of an own-process file under a loaded machine
// ("async hook stack has become corrupted", a native crash no test can catch;
// docs/development.md#a-native-abort), so those files run after the rest, on an otherwise idle
// machine. When that abort is why they failed, this says so loudly and runs them once more, and
// that run's result is final; any other failure fails at once.
const { spawn } = require('node:child_process');

const CHECKS = ['lint', 'format:check', 'check:cycles'];
const ABORT = 'async hook stack has become corrupted';

/** Runs `npm run <script>`, printing its output (npm's own warnings left out) whole when it ends. */
function check(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const text = output
        .split('\n')
        .filter((line) => !line.startsWith('npm warn'))
        .join('\n')
        .trim();
      process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}\n${text ? `${text}\n` : ''}`);
      resolve(code === 0);
    });
  });
}

/** Runs vitest's `project`, its output streamed; resolves whether it passed and whether Node aborted so. */
function vitest(project) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['vitest', 'run', '--project', project], { stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    const tee = (stream, out) =>
      stream.on('data', (chunk) => {
        out.write(chunk);
        seen = (seen + chunk.toString()).slice(-200_000);
      });
    tee(child.stdout, process.stdout);
    tee(child.stderr, process.stderr);
    child.on('close', (code) => resolve({ passed: code === 0, aborted: seen.includes(ABORT) }));
  });
}

async function ownProcessFiles() {
  const first = await vitest('own-process');
  if (first.passed || !first.aborted) return first.passed;
  console.error(
    `\n*** Node aborted in a Temporal workflow thread ("${ABORT}"): a known native crash under load ` +
      '(docs/development.md#a-native-abort). Running the own-process files once more. ***\n',
  );
  return (await vitest('own-process')).passed;
}

(async () => {
  const failed = [];
  if (!(await check('build'))) failed.push('build');
  else {
    const [checks, suite] = await Promise.all([
      Promise.all(CHECKS.map(check)),
      vitest('suite').then(({ passed }) => passed),
    ]);
    failed.push(...CHECKS.filter((_script, i) => !checks[i]));
    if (!suite) failed.push('the suite');
    if (!(await ownProcessFiles())) failed.push('the own-process files');
  }
  if (failed.length > 0) {
    console.error(`Failed: ${failed.join(', ')}`);
    process.exit(1);
  }
})();
