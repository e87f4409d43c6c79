import type { Command } from 'commander';
import { openAuditStore } from '../../audit/open-store';
import { People } from '../../contract/people/people';
import { DEFAULT_HTTP_ADDRESS, isLoopback, parseListenAddress } from '../../http/listen-address';
import { generateToken } from '../../http/tokens';
import type { LoadedProject } from '../../project/load-project';
import { peopleOf } from '../../project/people';
import { projectAgents } from '../../project/project-agents';
import { tokenSha256, type WaveloopSettings } from '../../settings';
import { UsageError } from '../errors';
import { InProcessWorker } from '../in-process-worker';
import { io } from '../io';
import { listenForStop } from '../stop-signals';
import { action, ensureServer, note, osUser, print, projectOf, runUrl, settings, withClient } from '../support';

/**
 * `waveloop serve`: the HTTP API (docs/http-api.md) until Ctrl-C, over the same Temporal server as
 * every command (the embedded one unless `TEMPORAL_ADDRESS` says otherwise).
 */

interface ServeOptions {
  listen?: string;
  worker?: boolean;
  cors?: string;
}

/** Adds `waveloop serve`. */
export function register(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the web inbox (every decision waiting for a person, runs, goal trees, what was decided) and the HTTP API: start, follow (Server-Sent Events) and decide runs, with bearer tokens',
    )
    .option(
      '--listen <host:port>',
      `address to listen on (default: WAVELOOP_HTTP_ADDRESS, else ${DEFAULT_HTTP_ADDRESS})`,
    )
    .option('--worker', "also run a worker with the project's tools in this process (default: none)")
    .option('--cors <origin>', 'let pages of this browser origin call the API (default: no cross-origin calls)')
    .action(action((options: ServeOptions) => serve(program, options)));
}

/**
 * Serves until Ctrl-C (or SIGTERM). People come from `WAVELOOP_HTTP_TOKENS` and the project config's
 * `people` (docs/security.md); without any, a token is made for this start and printed (as Jupyter
 * does) for the OS user, and the server listens on this machine only: on an address beyond it, it
 * refuses to start (a `UsageError`, exit 2), as it does for a person declared twice.
 */
async function serve(program: Command, options: ServeOptions): Promise<number> {
  const config = usage(() => settings());
  const address = options.listen ?? (io().env.WAVELOOP_HTTP_ADDRESS?.trim() || DEFAULT_HTTP_ADDRESS);
  const { host, port } = usage(() => parseListenAddress(address));
  const project = await projectOf(program).catch((err: Error) => {
    note(
      `The project did not load (${err.message}): "Start a run" takes any agent's name, and only WAVELOOP_HTTP_TOKENS gives people.`,
    );
    return undefined;
  });
  const given = usage(() => directoryOf(config, project));
  if (given.size === 0 && !isLoopback(host)) {
    throw new UsageError(
      `waveloop serve refuses to listen on ${host}, beyond this machine, without people: set WAVELOOP_HTTP_TOKENS (name:token[:groups],…) or the config's people, or listen on 127.0.0.1.`,
    );
  }
  const made = given.size === 0 ? { name: osUser(), token: generateToken() } : undefined;
  const people = made
    ? new People([
        { source: 'this start', people: [{ name: made.name, groups: [], tokenSha256: tokenSha256(made.token) }] },
      ])
    : given;
  const uiUrl = await ensureServer(config);
  const agents = project ? projectAgents(project.config).map((agent) => agent.name) : [];
  const audit = await openAuditStore(config, note);
  const stop = listenForStop();
  try {
    return await withClient(config, async (client) => {
      const worker = options.worker
        ? new InProcessWorker(config, project ?? (await projectOf(program)), () =>
            note(`A worker in this process serves task queue "${config.taskQueue}".`),
          )
        : undefined;
      await worker?.start();
      // Loaded here: a command other than serve never loads the HTTP server (Hono).
      const { startHttpServer } = await import('../../http/server');
      const webUi = uiUrl ? (id: string) => runUrl(uiUrl, config, id)! : undefined;
      const server = await startHttpServer({
        client,
        people,
        ...(audit ? { audit } : {}),
        cors: options.cors,
        host,
        port,
        log: note,
        agents,
        webhookAllow: config.webhooks.allow ?? [],
        ...(webUi ? { webUi } : {}),
      });
      try {
        print(`waveloop serve: the inbox on ${server.url}/, the HTTP API on ${server.url}/api.`);
        if (made) {
          print(`No people declared: this start made a token; decisions with it are recorded as by ${made.name}.`);
          print(`  Open the inbox: ${server.url}/?token=${made.token}`);
          print(`  curl -H "Authorization: Bearer ${made.token}" ${server.url}/api/pending`);
        } else
          note(
            `People: ${people
              .list()
              .map((person) => person.name + (person.groups.length ? ` (${person.groups.join(', ')})` : ''))
              .join(', ')}.`,
          );
        if (!worker)
          note(
            (await client.hasLiveWorker())
              ? `A worker polls task queue "${config.taskQueue}": the runs started here go to it.`
              : `No worker polls task queue "${config.taskQueue}": runs wait until one does (waveloop worker, or serve --worker).`,
          );
        note('Ctrl-C stops it.');
        await stop.stopped;
      } finally {
        await server.close();
        await worker?.stop();
      }
      return 0;
    });
  } finally {
    stop.dispose();
    await audit?.close();
  }
}

/** The people of the environment and the project config (none from a config that did not load). */
function directoryOf(config: WaveloopSettings, project: LoadedProject | undefined): People {
  return peopleOf(config, project?.config ?? { people: [] });
}

/** `parse()`, its `TypeError` as a `UsageError` (exit 2). */
function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw err instanceof TypeError ? new UsageError(err.message) : err;
  }
}
