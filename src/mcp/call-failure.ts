import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../tools/define';

/** What a failed MCP tool call means for the activity and for the server's connection. */
export interface CallFailure {
  /** What `execute` throws: a `ToolError` (the model reads it at once) or an `Error` (retried). */
  error: Error;
  /** The connection is unusable: close it, and let the next call connect afresh. */
  dropConnection: boolean;
}

/** Protocol errors by which the server refuses this call itself: retrying the same call cannot help. */
const REFUSALS = new Set<number>([ErrorCode.InvalidParams, ErrorCode.MethodNotFound, ErrorCode.InvalidRequest]);

/**
 * Sorts out why a call of `tool` on MCP server `server` threw.
 *
 * - The server refused the call (no such tool, invalid arguments, a result that breaks the tool's
 *   output schema): a `ToolError`, not retried.
 * - No answer within the call's time limit: a retryable `Error`; the connection stays, since other
 *   calls may be using it.
 * - The connection closed (a stdio server that died) or the transport failed (an HTTP server that
 *   is down, a session the server forgot): a retryable `Error`, and the connection is dropped, so
 *   the next attempt reconnects (restarting a stdio server).
 * - Any other protocol error (the server's own failure): a retryable `Error`.
 *
 * Every message names the server.
 */
export function callFailure(server: string, tool: string, err: unknown): CallFailure {
  const message = errorText(err);
  if (err instanceof McpError) {
    if (REFUSALS.has(err.code)) return { error: new ToolError(message), dropConnection: false };
    if (err.code === ErrorCode.RequestTimeout) {
      return {
        error: retryable(`MCP server "${server}" did not answer the call of ${tool} in time (${message}).`, err),
        dropConnection: false,
      };
    }
    if (err.code === ErrorCode.ConnectionClosed) {
      return {
        error: retryable(`MCP server "${server}" closed the connection during the call of ${tool} (${message}).`, err),
        dropConnection: true,
      };
    }
    return {
      error: retryable(`MCP server "${server}" failed the call of ${tool}: ${message}`, err),
      dropConnection: false,
    };
  }
  return {
    error: retryable(`MCP server "${server}" could not be reached for the call of ${tool}: ${message}`, err),
    dropConnection: true,
  };
}

/** An error's message, and its cause's when it has one (`fetch failed (connect ECONNREFUSED …)`). */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error && err.cause.message && !err.message.includes(err.cause.message)
    ? `${err.message} (${err.cause.message})`
    : err.message;
}

function retryable(message: string, cause: unknown): Error {
  return new Error(message, { cause });
}
