import { describe, expect, it } from 'vitest';
import { mcpResultText } from '../../src/mcp/tool-result';

describe('mcpResultText', () => {
  it('mcpResultText: joins the text blocks, one per line', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      }),
    ).toBe('first\nsecond');
  });

  it('mcpResultText: describes images, audio and binary resources by type, MIME type and size', () => {
    const png = Buffer.alloc(1234, 7).toString('base64');
    const wav = Buffer.alloc(10).toString('base64');
    const zip = Buffer.alloc(5).toString('base64');
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'audio', data: wav, mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.zip', mimeType: 'application/zip', blob: zip } },
        ],
      }),
    ).toBe(
      'Here:\n[image image/png, 1234 bytes]\n[audio audio/wav, 10 bytes]\n[resource file:///a.zip application/zip, 5 bytes]',
    );
  });

  it('mcpResultText: gives an embedded text resource its text, after its URI; a resource link by its URI', () => {
    expect(
      mcpResultText({
        content: [
          {
            type: 'resource',
            resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes\nBuy milk.' },
          },
          { type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv', description: 'All the rows' },
        ],
      }),
    ).toBe('[resource file:///notes.md]\n# Notes\nBuy milk.\n[resource link file:///big.csv: All the rows]');
  });

  it('mcpResultText: structuredContent comes as JSON when no block holds text, and not otherwise', () => {
    expect(mcpResultText({ content: [], structuredContent: { sum: 3 } })).toBe('{"sum":3}');
    expect(
      mcpResultText({ content: [{ type: 'image', data: '', mimeType: 'image/gif' }], structuredContent: { ok: true } }),
    ).toBe('{"ok":true}\n[image image/gif, 0 bytes]');
    expect(mcpResultText({ content: [{ type: 'text', text: 'The sum is 3.' }], structuredContent: { sum: 3 } })).toBe(
      'The sum is 3.',
    );
  });

  it('mcpResultText: a result with nothing in it reads "(no content)"', () => {
    expect(mcpResultText({ content: [] })).toBe('(no content)');
  });
});
