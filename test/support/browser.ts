import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { chromium, type Browser } from 'playwright-core';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { startHttpServer, type HttpServer } from '../../src/http';
import type { HttpAppOptions } from '../../src/http/app';
import { Harness } from './harness';
import { peopleWith, type TestPerson } from './people';

export { chromiumOrSkip, findChromium } from './chromium';

/**
 * What the browser tests share: Debian's Chromium (no browser is downloaded), driven by
 * playwright-core, against the inbox of an HTTP server on a worker in the test's own process.
 */

/** Where screenshots go: test/.output/browser, or docs/images with WAVELOOP_SCREENSHOTS=docs. */
export const SHOTS =
  process.env.WAVELOOP_SCREENSHOTS === 'docs'
    ? path.join(__dirname, '..', '..', 'docs', 'images')
    : path.join(__dirname, '..', '.output', 'browser');

/** Chromium at `executablePath`, headless, as a container runs it; the screenshots' folder made. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** A worker, the inbox's HTTP server on its task queue and Chromium, for one test file. */
export interface PageFixture {
  h: Harness;
  client: WaveloopClient;
  server: HttpServer;
  browser: Browser;
  /** Closes Chromium and the server, stops the worker and the harness. */
  stop(): Promise<void>;
}

/**
 * Starts a harness with a worker (`worker`: its options, as `Harness.worker` takes them), the
 * inbox's HTTP server for `people` on the worker's task queue (`http`: more of its options; no
 * agents offered on "Start a run" unless given) and Chromium at `executablePath`.
 */
export async function pageFixture(
  executablePath: string,
  {
    people,
    worker: workerOptions = {},
    http = {},
  }: {
    people: TestPerson[];
    worker?: Parameters<Harness['worker']>[0];
    http?: Partial<HttpAppOptions>;
  },
): Promise<PageFixture> {
  const h = await new Harness().start();
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let server: HttpServer | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await server?.close();
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await h.stop();
  };
  try {
    const served = await h.worker(workerOptions);
    worker = served.worker;
    running = worker.run();
    const client = new WaveloopClient(h.client, served.taskQueue);
    server = await startHttpServer({
      client,
      people: peopleWith(people),
      agents: [],
      log: () => {},
      ...http,
      host: '127.0.0.1',
      port: 0,
    });
    browser = await launchChromium(executablePath);
    return { h, client, server, browser, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
