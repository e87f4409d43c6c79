import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/** What the model reads of a result that holds nothing. */
export const NO_CONTENT = '(no content)';

/**
 * What the model reads of an MCP tool's result: its content blocks one after another, one per
 * line. Text is given as is, and so is the text of an embedded text resource (after a line naming
 * its URI); an image, audio or binary resource is described in a line (`[image image/png, 1234
 * bytes]`), a resource link by its URI. The result's `structuredContent`, as JSON, comes first
 * when no block holds text. Nothing at all reads `NO_CONTENT`.
 */
export function mcpResultText(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const blocks = result.content ?? [];
  const hasText = blocks.some(
    (block) => block.type === 'text' || (block.type === 'resource' && 'text' in block.resource),
  );
  const lines = blocks.map(describeBlock);
  if (!hasText && result.structuredContent !== undefined) lines.unshift(JSON.stringify(result.structuredContent));
  return lines.length > 0 ? lines.join('\n') : NO_CONTENT;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const { resource } = block;
      if ('text' in resource) return `[resource ${resource.uri}]\n${resource.text}`;
      return `[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${base64Bytes(resource.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link ${block.uri}${block.description ? `: ${block.description}` : ''}]`;
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** How many bytes a base64 string decodes to. */
function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}
