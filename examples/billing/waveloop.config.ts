/**
 * A project config: one tool of your own, an MCP server's tools, and an agent that uses both.
 *
 *   cd examples/billing
 *   npx waveloop tools
 *   npx waveloop run --agent billing "Is INV-2041 paid, and when does Initech pay?"
 */
import * as path from 'node:path';
import { defineAgent, defineConfig, defineTool, ToolError } from 'waveloop';
import { z } from 'zod';

// Stands in for your billing system.
const invoices = new Map([['INV-2041', { number: 'INV-2041', customer: 'Initech', amountUsd: 1200, paid: false }]]);

const getInvoice = defineTool({
  name: 'get_invoice',
  description: 'Looks up an invoice by its number and returns its customer, amount and whether it is paid.',
  parameters: z.object({ number: z.string().describe('Invoice number, e.g. INV-2041') }),
  timeoutSeconds: 10, // per attempt (default 60)
  retry: { maximumAttempts: 5 }, // default 3
  async execute({ number }) {
    // 2nd argument: { signal, heartbeat, idempotencyKey, workflowId, toolCallId }
    const invoice = invoices.get(number.trim().toUpperCase());
    if (!invoice) throw new ToolError(`No invoice ${number}`); // the model reads it; not retried
    return invoice; // the model sees it as JSON
  },
});

export default defineConfig({
  tools: [getInvoice],
  mcpServers: {
    // Offered as documents__read_text_file, documents__list_directory, …
    documents: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', path.join(__dirname, 'documents')],
      toolsToApprove: ['write_file', 'edit_file', 'move_file'],
    },
  },
  agents: [
    defineAgent({
      name: 'billing',
      system: 'You answer questions about invoices. Payment terms are in the documents folder.',
      tools: ['get_invoice', 'documents__list_directory', 'documents__read_text_file'],
      maxIterations: 10,
    }),
  ],
});
