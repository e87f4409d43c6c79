import { z } from 'zod';
import { defineTool } from '../../tools/define';
import { evaluateExpression } from './arithmetic';

/** `calculator`: evaluates arithmetic with {@link evaluateExpression} (a parser, never `eval`). */
export function calculatorTool() {
  return defineTool({
    name: 'calculator',
    effect: 'read',
    description:
      'Evaluates an arithmetic expression and returns the number. Supports + - * / % (remainder) ^ (power, ' +
      'right-associative), unary minus, parentheses, decimals, sqrt, abs, round(x) or round(x, digits), floor, ceil, ' +
      'min, max and the constants pi and e. Example: "round(160 * 3 * 1.08, 2)". Errors name the character position.',
    parameters: z.object({
      expression: z.string().trim().min(1).max(1000).describe('The expression, e.g. "(120 + 35.5) * 3 / 2".'),
    }),
    execute: ({ expression }): number => evaluateExpression(expression),
  });
}
