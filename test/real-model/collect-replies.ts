/**
 * Collects what a real model writes on the first call of the demo's scenarios, for the corpus of
 * text replies (`test/activities/model/fixtures/text-replies.jsonl`): each scenario's goal is sent
 * as waveloop's first model call sends it (the agent's system prompt, the goal, the tools' schemas,
 * parallel tool calls), at a temperature above 0 for variety, and each raw reply is written as a
 * JSON line `{ model, scenario, content, native }` (`native`: how many tool calls the server itself
 * parsed). Run against the endpoint in the environment (`OPENAI_BASE_URL`, `WAVELOOP_MODEL`):
 *
 *   npx jiti test/real-model/collect-replies.ts <replies per scenario> <out.jsonl> [scenario,…]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import OpenAI from 'openai';
import { toolParametersSchema } from '../../src/activities/model/tool-schema';
import { defaultAgent } from '../../src/agents/default';
import { createDemoTools, openDemoDatabase } from '../../src/demo';
import { backOfficeAgent } from '../../src/demo/agents';
import { builtinTools } from '../../src/tools';

const SCENARIOS: { name: string; goal: string; system: string; after?: OpenAI.Chat.ChatCompletionMessageParam[] }[] = [
  { name: 'calculator', goal: 'What is (17*23)+4? Use the calculator tool.', system: defaultAgent.system },
  { name: 'bob', goal: 'Find Bob and update his company to EPAM', system: backOfficeAgent.system },
  { name: 'hanukkah', goal: 'Which rooms are free over Hanukkah 2026?', system: backOfficeAgent.system },
  // The second call of the calculator run, after its wave: where the reply that had the defect came.
  {
    name: 'calculator-after-result',
    goal: 'What is (17*23)+4? Use the calculator tool.',
    system: defaultAgent.system,
    after: [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'calculator', arguments: '{"expression":"(17*23)+4"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '395' },
    ],
  },
];

async function main(): Promise<void> {
  const [perScenario = '5', out = 'replies.jsonl', only] = process.argv.slice(2);
  const model = process.env.WAVELOOP_MODEL ?? 'model';
  const openai = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'local' });
  const db = openDemoDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'replies-')), 'demo.db'));
  const offered = new Set([...(backOfficeAgent.tools ?? [])]);
  const tools = [...createDemoTools({ db, now: () => new Date() }), ...builtinTools()]
    .filter((tool) => offered.has(tool.name))
    .map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: toolParametersSchema(tool) },
    }));
  const today = new Date().toISOString().slice(0, 10);
  for (let i = 0; i < Number(perScenario); i++) {
    for (const scenario of SCENARIOS.filter((s) => !only || only.split(',').includes(s.name))) {
      const started = Date.now();
      const reply = await openai.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: `${scenario.system}\n\nToday is ${today}.` },
          { role: 'user', content: scenario.goal },
          ...(scenario.after ?? []),
        ],
        tools,
        parallel_tool_calls: true,
        temperature: 0.7 + 0.1 * (i % 4),
        max_tokens: 400,
      });
      const message = reply.choices[0]?.message;
      const line = {
        model,
        scenario: scenario.name,
        content: message?.content ?? '',
        native: message?.tool_calls?.length ?? 0,
      };
      fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
      console.log(
        `${i + 1} ${scenario.name} ${Date.now() - started} ms: ${JSON.stringify(line.content).slice(0, 120)}`,
      );
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
