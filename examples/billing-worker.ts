/**
 * A worker with a tool and an agent of your own (README, "Your own tools and agents").
 *
 *   npm run build && node dist/examples/billing-worker.js
 *
 * Then, in another terminal: waveloop run --detach --agent billing "Is INV-2041 paid?" and
 * waveloop follow <id>.
 */
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { connectionSettings, defineAgent, defineTool, loadConfig, ToolError } from '../src/client';
import { createModelClient, createWorker } from '../src/worker';

const invoices = new Map([['INV-2041', { number: 'INV-2041', customer: 'Initech', paid: false }]]);

const getInvoice = defineTool({
  name: 'get_invoice',
  description: 'Looks up an invoice by its number.',
  parameters: z.object({ number: z.string().describe('Invoice number, e.g. INV-2041') }),
  timeoutMs: 10_000,               // per attempt (default 60 s)
  retry: { maximumAttempts: 5 },   // default 3
  async execute({ number }) {     // 2nd argument: { signal, heartbeat, idempotencyKey, … }
    const invoice = invoices.get(number);
    if (!invoice) throw new ToolError(`No invoice ${number}`);   // the model reads it; not retried
    return invoice;                                               // the model sees it as JSON
  },
});

const billing = defineAgent({
  name: 'billing',
  system: 'You answer questions about invoices.',
  tools: ['get_invoice'],
  limits: { maxIterations: 10 },
});

async function run(): Promise<void> {
  const config = loadConfig();   // the variables of "Configuration"
  const connection = await NativeConnection.connect(connectionSettings(config));
  try {
    const worker = await createWorker({
      connection, namespace: config.namespace, taskQueue: config.taskQueue,
      tools: [getInvoice], agents: [billing],
      openai: createModelClient(config.model), defaultModel: config.model.model,
    });
    await worker.run();
  } finally {
    await connection.close();
  }
}

run().catch((err) => { console.error(err); process.exit(1); });
