/**
 * A 32-bit FNV-1a hash of a string's UTF-16 code units, as 8 hex digits. Not for security: it lets
 * the workflow name a tool result it does not send (`ModelCallInput.delta`) so that a worker can
 * tell the result it kept is that one. Pure and deterministic, so workflow code may use it.
 */
export function textHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
