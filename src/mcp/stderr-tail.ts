/**
 * The last lines a stdio MCP server wrote to its stderr, kept so that an error about the server
 * can quote them (why it would not start, why it died) while the worker's own output stays clean.
 * Holds at most `maxLines` lines of at most `maxLineChars` characters each.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines = 20,
    private readonly maxLineChars = 500,
  ) {}

  /** Takes a chunk of output; returns the lines it completed (for a caller that forwards them). */
  push(chunk: string): string[] {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    if (this.partial.length > this.maxLineChars) this.partial = this.partial.slice(0, this.maxLineChars);
    const complete = parts.filter((line) => line.trim() !== '').map((line) => this.clip(line));
    this.lines.push(...complete);
    this.lines.splice(0, Math.max(0, this.lines.length - this.maxLines));
    return complete;
  }

  /** The kept lines (and an unfinished last one), oldest first; empty when the server wrote nothing. */
  text(): string {
    return [...this.lines, ...(this.partial.trim() ? [this.clip(this.partial)] : [])].join('\n');
  }

  private clip(line: string): string {
    return line.length <= this.maxLineChars ? line : `${line.slice(0, this.maxLineChars - 1)}…`;
  }
}
