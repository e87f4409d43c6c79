import { ToolError } from '../../tools/define';

/**
 * A small recursive-descent evaluator for arithmetic, so the calculator never needs `eval`.
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "%") unary)*
 *   unary      := ("-" | "+") unary | power
 *   power      := primary (("^" | "**") unary)?          right-associative: 2^3^2 = 2^9
 *   primary    := number | constant | name "(" expression ("," expression)* ")" | "(" expression ")"
 *
 * Unary minus binds looser than `^`, so -2^2 = -4. `%` is the remainder, not a percentage.
 * Numbers are decimals with an optional exponent (1.5, .5, 2e3). Names are case-insensitive:
 * constants pi and e; functions sqrt, abs, floor, ceil, round(x) or round(x, digits), min, max.
 */

/** A syntax or evaluation error; `position` is the 1-based character where the problem was found. */
export class ExpressionError extends ToolError {
  override readonly name = 'ExpressionError';

  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(`${reason} at position ${position}`);
  }
}

type Token =
  | { kind: 'number'; value: number; position: number }
  | { kind: 'name' | 'symbol'; text: string; position: number }
  | { kind: 'end'; position: number };

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const SYMBOLS = ['**', '+', '-', '*', '/', '%', '^', '(', ')', ','];
const MAX_DEPTH = 100;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i])) {
      i++;
      continue;
    }
    const position = i + 1;
    NUMBER.lastIndex = NAME.lastIndex = i;
    const number = NUMBER.exec(text);
    const name = number ? null : NAME.exec(text);
    const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
    if (number) tokens.push({ kind: 'number', value: Number(number[0]), position });
    else if (name) tokens.push({ kind: 'name', text: name[0].toLowerCase(), position });
    else if (symbol) tokens.push({ kind: 'symbol', text: symbol === '**' ? '^' : symbol, position });
    else throw new ExpressionError(`Unexpected character "${text[i]}"`, position);
    i += number?.[0].length ?? name?.[0].length ?? symbol!.length;
  }
  tokens.push({ kind: 'end', position: text.length + 1 });
  return tokens;
}

const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
]);

interface MathFunction {
  arity: [min: number, max: number];
  apply(args: number[], position: number): number;
}

function sqrt([x]: number[], position: number): number {
  if (x < 0) throw new ExpressionError('Square root of a negative number', position);
  return Math.sqrt(x);
}

/** round(x) to a whole number, round(x, digits) to 0–15 decimal places; halves round up. */
function round([x, digits = 0]: number[], position: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new ExpressionError('round() digits must be a whole number from 0 to 15', position);
  }
  const scale = 10 ** digits;
  return Math.round(x * scale) / scale;
}

// Maps, not object literals: a name like "constructor" must not find Object.prototype members.
const FUNCTIONS = new Map<string, MathFunction>([
  ['sqrt', { arity: [1, 1], apply: sqrt }],
  ['abs', { arity: [1, 1], apply: ([x]) => Math.abs(x) }],
  ['floor', { arity: [1, 1], apply: ([x]) => Math.floor(x) }],
  ['ceil', { arity: [1, 1], apply: ([x]) => Math.ceil(x) }],
  ['round', { arity: [1, 2], apply: round }],
  ['min', { arity: [1, Infinity], apply: (args) => Math.min(...args) }],
  ['max', { arity: [1, Infinity], apply: (args) => Math.max(...args) }],
]);

function describe(token: Token): string {
  if (token.kind === 'end') return 'end of expression';
  return token.kind === 'number' ? `number ${token.value}` : `"${token.text}"`;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): number {
    const value = this.expression();
    const next = this.peek();
    if (next.kind !== 'end') throw new ExpressionError(`Unexpected ${describe(next)}`, next.position);
    return value;
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private isSymbol(...symbols: string[]): boolean {
    const token = this.peek();
    return token.kind === 'symbol' && symbols.includes(token.text);
  }

  private expect(symbol: string): void {
    if (!this.isSymbol(symbol)) {
      throw new ExpressionError(`Expected "${symbol}" but found ${describe(this.peek())}`, this.peek().position);
    }
    this.index++;
  }

  /** Runs `parse` one level deeper, refusing absurd nesting instead of overflowing the stack. */
  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ExpressionError('Expression nested too deeply', this.peek().position);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private expression(): number {
    let value = this.term();
    while (this.isSymbol('+', '-')) {
      const operator = this.tokens[this.index++] as { text: string };
      const right = this.term();
      value = operator.text === '+' ? value + right : value - right;
    }
    return value;
  }

  private term(): number {
    let value = this.unary();
    while (this.isSymbol('*', '/', '%')) {
      const operator = this.tokens[this.index++] as { text: string; position: number };
      const right = this.unary();
      if (operator.text !== '*' && right === 0) {
        throw new ExpressionError(operator.text === '/' ? 'Division by zero' : 'Remainder by zero', operator.position);
      }
      value = operator.text === '*' ? value * right : operator.text === '/' ? value / right : value % right;
    }
    return value;
  }

  private unary(): number {
    if (this.isSymbol('-', '+')) {
      const sign = (this.tokens[this.index++] as { text: string }).text === '-' ? -1 : 1;
      return this.nested(() => sign * this.unary());
    }
    return this.power();
  }

  private power(): number {
    const base = this.primary();
    if (!this.isSymbol('^')) return base;
    this.index++;
    return base ** this.nested(() => this.unary());
  }

  private primary(): number {
    const token = this.peek();
    if (token.kind === 'number') {
      this.index++;
      return token.value;
    }
    if (token.kind === 'name') {
      this.index++;
      return this.isSymbol('(') ? this.call(token.text, token.position) : this.constant(token.text, token.position);
    }
    if (this.isSymbol('(')) {
      this.index++;
      const value = this.nested(() => this.expression());
      this.expect(')');
      return value;
    }
    throw new ExpressionError(`Expected a number, a name or "(" but found ${describe(token)}`, token.position);
  }

  private constant(name: string, position: number): number {
    const value = CONSTANTS.get(name);
    if (value !== undefined) return value;
    const hint = FUNCTIONS.has(name) ? ` (call it: ${name}(...))` : '';
    throw new ExpressionError(`Unknown name "${name}"${hint}`, position);
  }

  private call(name: string, position: number): number {
    const fn = FUNCTIONS.get(name);
    if (!fn) throw new ExpressionError(`Unknown function "${name}"`, position);
    this.expect('(');
    const args = [this.nested(() => this.expression())];
    while (this.isSymbol(',')) {
      this.index++;
      args.push(this.nested(() => this.expression()));
    }
    this.expect(')');
    const [min, max] = fn.arity;
    if (args.length < min || args.length > max) {
      const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      throw new ExpressionError(`${name}() takes ${expected} argument(s), got ${args.length}`, position);
    }
    return fn.apply(args, position);
  }
}

/**
 * Evaluates an arithmetic expression (grammar above). Throws {@link ExpressionError} with the
 * character position for bad syntax, unknown names and division by zero, and a plain `Error`
 * when the result is not a finite number (overflow, 0^-1).
 */
export function evaluateExpression(text: string): number {
  const value = new Parser(tokenize(text)).parse();
  if (!Number.isFinite(value)) throw new ToolError(`"${text}" does not evaluate to a finite number`);
  return value;
}
