import { describe, expect, it } from 'vitest';
import { evaluateExpression, ExpressionError } from '../../../src/demo/tools/arithmetic';
import { calculatorTool } from '../../../src/demo/tools/calculator';
import { callTool } from '../../support/tool-context';

describe('evaluateExpression', () => {
  it('evaluateExpression: precedence and left associativity', () => {
    expect(evaluateExpression('1 + 2 * 3')).toBe(7);
    expect(evaluateExpression('(1 + 2) * 3')).toBe(9);
    expect(evaluateExpression('10 - 4 - 3')).toBe(3);
    expect(evaluateExpression('64 / 4 / 2')).toBe(8);
    expect(evaluateExpression('7 % 4 * 2')).toBe(6);
  });

  it('evaluateExpression: ^ is right-associative and binds tighter than unary minus', () => {
    expect(evaluateExpression('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluateExpression('2 ** 3')).toBe(8);
    expect(evaluateExpression('-2 ^ 2')).toBe(-4);
    expect(evaluateExpression('(-2) ^ 2')).toBe(4);
    expect(evaluateExpression('2 ^ -1')).toBe(0.5);
    expect(evaluateExpression('--3')).toBe(3);
  });

  it('evaluateExpression: decimals, exponents, functions and constants', () => {
    expect(evaluateExpression('.5 + 1.25')).toBe(1.75);
    expect(evaluateExpression('2e3')).toBe(2000);
    expect(evaluateExpression('sqrt(16) + abs(-3)')).toBe(7);
    expect(evaluateExpression('round(2.5) + floor(1.9) + ceil(1.1)')).toBe(6);
    expect(evaluateExpression('round(160 * 3 * 1.08, 2)')).toBe(518.4);
    expect(evaluateExpression('min(3, 1, 2) + max(3, 1, 2)')).toBe(4);
    expect(evaluateExpression('PI')).toBeCloseTo(Math.PI);
    expect(evaluateExpression('e ^ 1')).toBeCloseTo(Math.E);
  });

  it('evaluateExpression: division by zero says where', () => {
    expect(() => evaluateExpression('1 + 4 / (2 - 2)')).toThrow('Division by zero at position 7');
    expect(() => evaluateExpression('5 % 0')).toThrow(/Remainder by zero at position 3/);
  });

  it('evaluateExpression: syntax errors carry the character position', () => {
    const positionOf = (text: string) => {
      try {
        evaluateExpression(text);
      } catch (err) {
        expect(err).toBeInstanceOf(ExpressionError);
        return (err as ExpressionError).position;
      }
      throw new Error(`"${text}" did not throw`);
    };
    expect(positionOf('1 +')).toBe(4);
    expect(positionOf('(1 + 2')).toBe(7);
    expect(positionOf('1 2')).toBe(3);
    expect(positionOf('2 $ 3')).toBe(3);
    expect(positionOf('foo(1)')).toBe(1);
    expect(positionOf('sqrt(1, 2)')).toBe(1);
    expect(positionOf('')).toBe(1);
  });

  it('evaluateExpression: code is rejected, never evaluated', () => {
    expect(() => evaluateExpression('process.exit()')).toThrow(ExpressionError);
    expect(() => evaluateExpression('process.exit()')).toThrow(/position/);
    expect(() => evaluateExpression('require("fs")')).toThrow(ExpressionError);
    expect(() => evaluateExpression('constructor')).toThrow(/Unknown name "constructor"/);
    expect(() => evaluateExpression('toString(1)')).toThrow(/Unknown function "tostring"/);
  });

  it('evaluateExpression: deep nesting and non-finite results throw instead of crashing', () => {
    expect(() => evaluateExpression('('.repeat(5000) + '1' + ')'.repeat(5000))).toThrow(/nested too deeply/);
    expect(() => evaluateExpression('10 ^ 400')).toThrow(/finite/);
    expect(() => evaluateExpression('sqrt(-1)')).toThrow(/negative/);
  });
});

describe('calculator', () => {
  it('calculator: returns the value of the expression', async () => {
    expect(await callTool(calculatorTool(), { expression: '(120 + 35.5) * 3 / 2' })).toBe(233.25);
  });

  it('calculator: errors reach the caller as rejections', async () => {
    await expect(callTool(calculatorTool(), { expression: 'process.exit()' })).rejects.toThrow(/position/);
  });

  it('calculator: rejects empty and over-long expressions before evaluating', () => {
    const { parameters } = calculatorTool();
    expect(parameters.safeParse({ expression: ' ' }).success).toBe(false);
    expect(parameters.safeParse({ expression: '1+'.repeat(600) + '1' }).success).toBe(false);
  });
});
