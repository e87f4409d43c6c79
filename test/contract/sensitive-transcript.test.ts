import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/contract/agent-loop';
import { maskToolCalls } from '../../src/contract/sensitive';

const CARD = '4111111111111111';
const sensitiveOf = (tool: string) => (tool === 'charge_card' ? ['cardNumber'] : undefined);
const call = (id: string, name: string, args: string) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args },
});

describe('maskToolCalls', () => {
  it("masks a sensitive tool's arguments in the model's calls and leaves other messages and tools as they are", () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: `Charge ${CARD}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          call('a', 'charge_card', JSON.stringify({ cardNumber: CARD, amount: 25 })),
          call('b', 'lookup', JSON.stringify({ cardNumber: CARD })),
          call('c', 'charge_card', `card ${CARD}, not JSON`),
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'charged' },
    ];
    const shown = maskToolCalls(messages, sensitiveOf);
    const calls = (shown[1] as Extract<ChatMessage, { role: 'assistant' }>).tool_calls!;
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ cardNumber: '•••• 1111', amount: 25 });
    expect(JSON.parse(calls[1]!.function.arguments)).toEqual({ cardNumber: CARD });
    // Text that is not a JSON object may hold the card all the same: it is masked whole.
    expect(calls[2]!.function.arguments).toBe('•••• JSON');
    expect(shown[0]).toBe(messages[0]);
    expect(shown[2]).toBe(messages[2]);
    // The run's own messages are not changed.
    expect((messages[1] as Extract<ChatMessage, { role: 'assistant' }>).tool_calls![0]!.function.arguments).toContain(
      CARD,
    );
  });
});
