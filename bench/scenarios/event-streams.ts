import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createParser } from 'eventsource-parser';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { median, p95, round } from '../support/stats';
import { runId } from '../support/waveloop';

export interface EventStreamSizes {
  /** Runs waiting for an approval, each with one open event stream. */
  streams: number;
  /** Of them, how many are approved one after another to time their `call` event. */
  timed: number;
  /** How long the open streams are watched for the server's CPU, in seconds. */
  watchSeconds: number;
}

const TOKEN = 'bench-token-0001';
const CLI = path.join(__dirname, '..', '..', '..', 'bin', 'waveloop.js');
const TICKS_PER_SECOND = 100;

/**
 * What the inbox's event streams cost `waveloop serve` (a process of its own, the CLI): `streams`
 * runs wait for an approval and each has an open stream (`GET /api/runs/{id}/events`); the server's
 * CPU and memory are read from /proc while they are open, against the same server with none open.
 * Then `timed` runs are approved one by one, and each stream's `call` event is timed from the
 * call's `ActivityTaskCompleted` event in the run's history (one machine, one clock).
 */
export async function eventStreams(env: BenchEnv, sizes: EventStreamSizes): Promise<ScenarioResult> {
  const { worker, taskQueue } = await env.worker();
  const client = new WaveloopClient(env.client, taskQueue);
  const ids = Array.from({ length: sizes.streams }, () => runId('streams'));
  const cwd = fs.mkdtempSync(path.join(env.dataDir, 'serve-'));
  const serve = spawn(process.execPath, [CLI, 'serve', '--listen', '127.0.0.1:0'], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: env.address,
      WAVELOOP_TASK_QUEUE: taskQueue,
      WAVELOOP_DATA_DIR: cwd,
      WAVELOOP_HTTP_TOKENS: `bench:${TOKEN}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  serve.stdout.on('data', (d) => (printed += d));
  serve.stderr.on('data', () => {});
  const streams: AbortController[] = [];
  try {
    return await worker.runUntil(async () => {
      const url = await until(async () => /on (http:\/\/[\d.]+:\d+)\//.exec(printed)?.[1], 'serve to listen');
      await Promise.all(
        ids.map((id) =>
          env.client.workflow.start(AGENT_LOOP_WORKFLOW, {
            taskQueue,
            workflowId: id,
            args: [{ goal: goalFor({ run: id }), maxIterations: 2, toolsToApprove: ['bench_tool'] }],
          }),
        ),
      );
      await until(async () => {
        const { decisions } = await client.runs.pending();
        return decisions.filter((d) => ids.includes(d.workflowId)).length === ids.length || undefined;
      }, 'every run to wait');

      const idle = await watch(serve.pid!, sizes.watchSeconds);
      const arrivals = new Map<string, { approval?: string; call?: number }>();
      for (const id of ids) {
        const abort = new AbortController();
        streams.push(abort);
        const seen: { approval?: string; call?: number } = {};
        arrivals.set(id, seen);
        void follow(`${url}/api/runs/${id}/events`, abort.signal, (event, data) => {
          if (event === 'approval')
            seen.approval = (JSON.parse(data) as { approval: { callId: string } }).approval.callId;
          if (event === 'call') seen.call = Date.now();
        });
      }
      await until(async () => [...arrivals.values()].every((a) => a.approval) || undefined, 'every stream to open');
      const open = await watch(serve.pid!, sizes.watchSeconds);

      const latencies: number[] = [];
      for (const id of ids.slice(0, sizes.timed)) {
        const seen = arrivals.get(id)!;
        await client.runs.approve(id, seen.approval!, { by: 'bench' });
        await until(async () => seen.call, `the call event of ${id}`);
        latencies.push(seen.call! - (await settledAt(env, id)));
      }
      await Promise.all(
        ids.map((id) =>
          env.client.workflow
            .getHandle(id)
            .terminate('bench done')
            .catch(() => {}),
        ),
      );
      return {
        id: 13,
        title: "The inbox's event streams (`waveloop serve`)",
        sizes: `${sizes.streams} runs waiting for an approval, one open stream each, watched ${sizes.watchSeconds} s; ${sizes.timed} approved one by one`,
        table: {
          head: ['streams open', 'serve CPU', 'serve memory (RSS)', 'call → event, median', 'p95'],
          rows: [
            [0, `${round(idle.cpuPercent)} %`, `${idle.rssMb} MB`, '', ''],
            [
              sizes.streams,
              `${round(open.cpuPercent)} %`,
              `${open.rssMb} MB`,
              ms(median(latencies)),
              ms(p95(latencies)),
            ],
          ],
        },
        targets: [
          {
            target: `${sizes.streams} open streams: serve under one core`,
            value: `${round(open.cpuPercent)} %`,
            met: open.cpuPercent < 100,
          },
          {
            target: 'a settled call reaches its stream within a second',
            value: ms(p95(latencies)),
            met: p95(latencies) < 1000,
          },
        ],
        notes: [
          "Each stream follows its run by the run's `status` query every 250 ms, as `waveloop run` does: the cost grows with the streams open, and the queries are answered by the run's worker (from its cache).",
          "The latency is from the call's `ActivityTaskCompleted` in history to the `call` event read by the client: the workflow task that records it, then up to one 250 ms poll.",
        ],
        data: { idle, open, latencies },
      };
    });
  } finally {
    for (const abort of streams) abort.abort();
    serve.kill('SIGINT');
  }
}

/** The serve process's CPU (per cent of one core) over `seconds`, and its resident memory at the end. */
async function watch(pid: number, seconds: number): Promise<{ cpuPercent: number; rssMb: number }> {
  const ticks = () => {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const t0 = ticks();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpuPercent = ((ticks() - t0) / TICKS_PER_SECOND / seconds) * 100;
  const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return { cpuPercent, rssMb: Math.round(Number(rss) / 1024) };
}

/** Reads the event stream at `url` until `signal` aborts, handing each event to `onEvent`. */
async function follow(url: string, signal: AbortSignal, onEvent: (event: string, data: string) => void): Promise<void> {
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` }, signal });
    const parser = createParser({ onEvent: ({ event, data }) => onEvent(event ?? 'message', data) });
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  } catch {
    // Aborted at the end.
  }
}

/** When the run's tool call completed: its `ActivityTaskCompleted` event's time. */
async function settledAt(env: BenchEnv, workflowId: string): Promise<number> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const completed = history.events!.filter((e) => e.activityTaskCompletedEventAttributes).pop()!;
  const { seconds, nanos } = completed.eventTime!;
  return Number(seconds) * 1000 + (nanos ?? 0) / 1e6;
}

/** Polls `check` every 50 ms until it returns a value; throws after a minute, naming `what`. */
async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value as T;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}.`);
}
