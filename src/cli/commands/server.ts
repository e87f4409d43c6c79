import { loadSettings } from '../../settings';
import { print, withClient } from '../support';
import { embeddedServerStatus, ensureEmbeddedServer, stopEmbeddedServer } from '../../server/embedded-server';

/**
 * The commands that look after the Temporal service rather than runs: `waveloop setup` (waveloop's
 * search attributes on the namespace) and `waveloop server start|stop|status` (the embedded dev
 * server). Each prints one line and resolves to exit status 0 (`server status`: 1 when it is not running).
 */

/** `waveloop setup`: registers the search attributes the namespace lacks, and says which. */
export async function setupCommand(): Promise<number> {
  return withClient(loadSettings(), async (client) => {
    const added = await client.setupSearchAttributes();
    print(added.length ? `Registered ${added.join(', ')}.` : 'The search attributes are registered already.');
    return 0;
  });
}

/** `waveloop server start`: starts the embedded server in the background unless something already answers. */
export async function serverStartCommand(): Promise<number> {
  const config = loadSettings();
  const status = await ensureEmbeddedServer({ dataDir: config.dataDir, ...config.embeddedServer });
  print(`${status.started ? 'Started' : 'Already running:'} Temporal on ${status.address} · Web UI ${status.uiUrl}`);
  return 0;
}

/** `waveloop server stop`: stops the embedded server waveloop started, if it runs. */
export async function serverStopCommand(): Promise<number> {
  const result = await stopEmbeddedServer(loadSettings().dataDir);
  print(result.stopped ? `Stopped the embedded Temporal server (pid ${result.pid}).` : 'The embedded Temporal server was not running.');
  return 0;
}

/** `waveloop server status`: whether the embedded server runs, with its pid and addresses; exit status 1 when it does not. */
export async function serverStatusCommand(): Promise<number> {
  const status = await embeddedServerStatus(loadSettings().dataDir);
  print(status.running ? `Running (pid ${status.pid}) on ${status.address} · Web UI ${status.uiUrl}` : 'Not running.');
  return status.running ? 0 : 1;
}
