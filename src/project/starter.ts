/** The file `waveloop init` writes. */
export const STARTER_CONFIG_FILE = 'waveloop.config.ts';

/** The agent of the starter config, and a goal it can reach, for the command `init` suggests. */
export const STARTER_AGENT = 'orders';
export const STARTER_GOAL = 'What is the status of order A-1001?';

/** A starter `waveloop.config.ts`: one tool, one agent, and an MCP server to uncomment. */
export const STARTER_CONFIG = `import { defineAgent, defineConfig, defineTool, ToolError } from 'waveloop';
import { z } from 'zod';

// Stands in for your own system: a database, an internal API, a queue.
const orders = new Map([
  ['A-1001', { id: 'A-1001', customer: 'Initech', status: 'shipped' }],
  ['A-1002', { id: 'A-1002', customer: 'Globex', status: 'waiting for payment' }],
]);

const getOrder = defineTool({
  name: 'get_order',
  description: 'Looks up an order by its id (e.g. A-1001) and returns its customer and status.',
  parameters: z.object({ id: z.string().describe('Order id, e.g. A-1001') }),
  effect: 'read', // it changes nothing: read, idempotent or write (the default), see docs/effects.md
  async execute({ id }) {
    const order = orders.get(id.trim().toUpperCase());
    if (!order) throw new ToolError(\`No order \${id}\`); // the model reads it; not retried
    return order; // the model sees it as JSON
  },
});

export default defineConfig({
  tools: [getOrder],
  agents: [
    defineAgent({
      name: '${STARTER_AGENT}',
      system: 'You answer questions about orders. Look each order up with get_order before you answer.',
      tools: ['get_order'],
      maxIterations: 10,
    }),
  ],
  // MCP servers' tools are offered as <server>__<tool>, e.g. files__read_text_file; the tools the
  // server marks destructive (write_file, edit_file, move_file) wait for approval:
  // mcpServers: {
  //   files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
  // },
});
`;
