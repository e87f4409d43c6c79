/**
 * The request parameters a fake endpoint can refuse (`FakeModel.refuse`), and the 400 each gets, in
 * the words real endpoints use: OpenAI's `unsupported_parameter` with `param`, Azure's
 * "Unrecognized request argument supplied", llama.cpp's "Unsupported param".
 */
export type RefusableParameter =
  | 'parallel_tool_calls'
  | 'stream_options'
  | 'tool_choice'
  | 'max_tokens'
  | 'max_completion_tokens'
  /** A `response_format` of type `json_schema`. */
  | 'json_schema'
  /** A `response_format` of type `json_object`. */
  | 'json_object'
  /** Any `response_format`. */
  | 'response_format';

/** The body of an OpenAI-style error. */
export interface ErrorBody {
  message: string;
  type: string;
  param?: string | null;
  code?: string | number | null;
}

/** The parts of a request a refusal looks at. */
interface Refusable {
  parallel_tool_calls?: unknown;
  stream_options?: unknown;
  tool_choice?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  response_format?: { type: string };
}

const OPENAI = 'invalid_request_error';

const REFUSALS: Record<RefusableParameter, { carried: (request: Refusable) => boolean; error: ErrorBody }> = {
  parallel_tool_calls: {
    carried: (r) => r.parallel_tool_calls !== undefined,
    error: {
      message: "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.",
      type: OPENAI,
      param: 'parallel_tool_calls',
      code: 'unsupported_parameter',
    },
  },
  stream_options: {
    carried: (r) => r.stream_options !== undefined,
    error: { message: 'Unrecognized request argument supplied: stream_options', type: OPENAI, param: null, code: null },
  },
  tool_choice: {
    carried: (r) => r.tool_choice !== undefined,
    error: { message: 'Unsupported param: tool_choice', type: OPENAI, code: 400 },
  },
  max_tokens: {
    carried: (r) => r.max_tokens !== undefined,
    error: {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: OPENAI,
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  },
  max_completion_tokens: {
    carried: (r) => r.max_completion_tokens !== undefined,
    error: {
      message: 'Unrecognized request argument supplied: max_completion_tokens',
      type: OPENAI,
      param: null,
      code: null,
    },
  },
  json_schema: {
    carried: (r) => r.response_format?.type === 'json_schema',
    error: {
      message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      type: OPENAI,
      param: 'response_format',
      code: null,
    },
  },
  json_object: {
    carried: (r) => r.response_format?.type === 'json_object',
    error: {
      message: 'response_format type must be one of "text" or "json_schema", but got: json_object',
      type: OPENAI,
      code: 400,
    },
  },
  response_format: {
    carried: (r) => r.response_format !== undefined,
    error: { message: 'Unsupported param: response_format', type: OPENAI, code: 400 },
  },
};

/** The error of the first of `refused` that `request` carries, if any. */
export function refusalOf(request: Refusable, refused: readonly RefusableParameter[]): ErrorBody | undefined {
  const parameter = refused.find((p) => REFUSALS[p].carried(request));
  return parameter && REFUSALS[parameter].error;
}
