import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME_LENGTH, mcpToolName } from '../../src/mcp/tool-names';

const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe('mcpToolName', () => {
  it('mcpToolName: joins server and tool with "__"', () => {
    expect(mcpToolName('files', 'read_text_file')).toBe('files__read_text_file');
    expect(mcpToolName('everything', 'get-sum')).toBe('everything__get-sum');
  });

  it('mcpToolName: replaces characters the model APIs refuse with "_"', () => {
    expect(mcpToolName('docs', 'search.pages v2/ü')).toBe('docs__search_pages_v2__');
  });

  it('mcpToolName: a name past 64 characters is cut and ends with a hash of the whole name', () => {
    const long = 'a_tool_with_a_very_long_name_that_goes_on_and_on_and_on';
    const name = mcpToolName('everything', long);
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(name).toMatch(MODEL_TOOL_NAME);
    expect(name).toMatch(/^everything__a_tool_with_a_very_long_name_that_goes_on_a_[0-9a-f]{8}$/);
    // Stable: the same tool gets the same name every time (every worker, every run).
    expect(mcpToolName('everything', long)).toBe(name);
  });

  it('mcpToolName: long names that differ only past the cut stay distinct', () => {
    const stem = 'x'.repeat(70);
    const names = ['1', '2', '3'].map((end) => mcpToolName('server', stem + end));
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(MODEL_TOOL_NAME);
  });

  it('mcpToolName: exactly 64 characters are kept as they are', () => {
    const tool = 'y'.repeat(64 - 'srv__'.length);
    expect(mcpToolName('srv', tool)).toBe(`srv__${tool}`);
  });
});
