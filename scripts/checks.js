#!/usr/bin/env node
// `npm test`'s checks before the tests: build, type-check, lint, the formatting check and the import-cycle check, run at
// once (each mostly waits on one core), each one's output printed whole when it ends. Exits 1 if
// any failed, naming them.
const { spawn } = require('node:child_process');

const SCRIPTS = ['build', 'typecheck', 'lint', 'format:check', 'check:cycles'];

function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    });
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

Promise.all(SCRIPTS.map(run)).then((results) => {
  const failed = SCRIPTS.filter((_script, i) => !results[i]);
  if (failed.length > 0) {
    console.error(`Failed: ${failed.join(', ')}`);
    process.exit(1);
  }
});
