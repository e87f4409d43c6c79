import type { Command } from 'commander';
import { embeddedServerStatus, ensureEmbeddedServer, stopEmbeddedServer } from '../../server/embedded-server';
import { action, print, settings, withClient } from '../support';

/**
 * The commands that look after the Temporal service rather than runs: `waveloop setup` (waveloop's
 * search attributes on the namespace) and `waveloop server start|stop|status` (the embedded dev
 * server). Each prints one line and resolves to exit status 0 (`server status`: 1 when it is not running).
 */

/** Adds `waveloop setup` and `waveloop server start|stop|status`. */
export function register(program: Command): void {
  program
    .command('setup')
    .description("register waveloop's search attributes on the namespace (the embedded server has them)")
    .action(action(() => setupCommand()));
  const server = program.command('server').description('the embedded Temporal dev server');
  server
    .command('start')
    .description('start it in the background (if nothing answers on 127.0.0.1:7233)')
    .action(action(() => serverStartCommand()));
  server
    .command('stop')
    .description('stop the embedded server started by waveloop')
    .action(action(() => serverStopCommand()));
  server
    .command('status')
    .description('is the embedded server running?')
    .action(action(() => serverStatusCommand()));
}

/** `waveloop setup`: registers the search attributes the namespace lacks, and says which. */
async function setupCommand(): Promise<number> {
  return withClient(settings(), async (client) => {
    const added = await client.setupSearchAttributes();
    print(added.length ? `Registered ${added.join(', ')}.` : 'The search attributes are registered already.');
    return 0;
  });
}

/** `waveloop server start`: starts the embedded server in the background unless something already answers. */
async function serverStartCommand(): Promise<number> {
  const config = settings();
  const status = await ensureEmbeddedServer({ dataDir: config.dataDir, ...config.embeddedServer });
  print(`${status.started ? 'Started' : 'Already running:'} Temporal on ${status.address} · Web UI ${status.uiUrl}`);
  return 0;
}

/** `waveloop server stop`: stops the embedded server waveloop started, if it runs. */
async function serverStopCommand(): Promise<number> {
  const result = await stopEmbeddedServer(settings().dataDir);
  print(
    result.stopped
      ? `Stopped the embedded Temporal server (pid ${result.pid}).`
      : 'The embedded Temporal server was not running.',
  );
  return 0;
}

/** `waveloop server status`: whether the embedded server runs, with its pid and addresses; exit status 1 when it does not. */
async function serverStatusCommand(): Promise<number> {
  const status = await embeddedServerStatus(settings().dataDir);
  print(status.running ? `Running (pid ${status.pid}) on ${status.address} · Web UI ${status.uiUrl}` : 'Not running.');
  return status.running ? 0 : 1;
}
