import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EvalRecording, RecordedCase } from '../../client/eval-recording';

interface ChatMessageIn {
  role: string;
  content?: string | null;
  tool_call_id?: string;
}

/**
 * An OpenAI-compatible endpoint (`POST /v1/chat/completions`, whole replies only) that answers
 * each model call of an eval's case from a recording while the transcript matches: the request's
 * goal (its first user message) names the case, its assistant messages say which call it is, and
 * every tool message must be what the recorded run's tool returned. Anything else (a goal not
 * recorded, a call past the recording, a tool result that differs) is answered 400 with what
 * diverged, so the case's run fails at once with that message. It counts what it answered.
 */
export class ReplayServer {
  answered = 0;
  private server: http.Server | undefined;
  private readonly byGoal = new Map<string, RecordedCase[]>();

  constructor(recording: EvalRecording) {
    for (const c of recording.cases) this.byGoal.set(c.goal, [...(this.byGoal.get(c.goal) ?? []), c]);
  }

  /** Starts listening on a free port of 127.0.0.1; resolves to its base URL (`…/v1`). */
  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
      return send(404, { error: { message: `${req.method} ${req.url}: not an endpoint of the replay` } });
    let request: { model?: string; messages?: ChatMessageIn[] };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      return send(400, { error: { message: 'the request is not JSON' } });
    }
    const answer = this.answer(request.messages ?? []);
    if ('diverged' in answer)
      return send(400, { error: { message: `replay: ${answer.diverged}`, type: 'invalid_request_error' } });
    this.answered += 1;
    const { reply, usage } = answer.call;
    const toolCalls = reply.tool_calls?.length ? reply.tool_calls : undefined;
    send(200, {
      id: `replay-${this.answered}`,
      object: 'chat.completion',
      created: 0,
      model: request.model ?? 'replay',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.totalTokens,
      },
    });
  }

  /** The recorded call that answers `messages`, or what diverged. */
  private answer(messages: ChatMessageIn[]): { call: RecordedCase['calls'][number] } | { diverged: string } {
    const goal = messages.find((m) => m.role === 'user')?.content ?? '';
    const cases = this.byGoal.get(goal);
    if (!cases) return { diverged: `no recorded case has the goal ${JSON.stringify(goal.slice(0, 80))}` };
    const index = messages.filter((m) => m.role === 'assistant').length;
    let why = '';
    for (const c of cases) {
      const wrong = messages.find((m) => m.role === 'tool' && c.toolResults[m.tool_call_id ?? ''] !== m.content);
      if (wrong) {
        const recorded = c.toolResults[wrong.tool_call_id ?? ''];
        why =
          recorded === undefined
            ? `call ${index + 1}: the tool call ${wrong.tool_call_id} was not recorded`
            : `call ${index + 1}: the tool result of ${wrong.tool_call_id} differs from the recording ` +
              `(recorded ${JSON.stringify(recorded.slice(0, 80))}, now ${JSON.stringify(String(wrong.content).slice(0, 80))})`;
        continue;
      }
      if (index >= c.calls.length) {
        why = `call ${index + 1}: the recording has only ${c.calls.length} model calls`;
        continue;
      }
      return { call: c.calls[index] };
    }
    return { diverged: `the transcript diverged from the recording at ${why}` };
  }
}
