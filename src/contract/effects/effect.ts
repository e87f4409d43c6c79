/**
 * What a tool's call does to the world outside the run: `read` changes nothing; `idempotent`
 * changes something, and a repeat with the same idempotency key changes nothing more; `write`
 * changes something, and a repeat may change it again (docs/effects.md).
 */
export type ToolEffect = 'read' | 'idempotent' | 'write';

/** The effects, in order of what a repeat may cost. */
export const TOOL_EFFECTS = ['read', 'idempotent', 'write'] as const satisfies readonly ToolEffect[];

/** The effect of a tool that does not say: the cautious one. */
export const DEFAULT_EFFECT: ToolEffect = 'write';

/** Whether `value` names an effect. */
export function isToolEffect(value: unknown): value is ToolEffect {
  return (TOOL_EFFECTS as readonly unknown[]).includes(value);
}
