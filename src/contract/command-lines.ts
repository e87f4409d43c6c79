/**
 * The `waveloop` command lines a person types to give a run what it waits for, exactly as they are to be
 * typed: shown by the CLI and in the Web UI (a run's current details). `<…>` and `"…"` mark what
 * the person fills in.
 */

/** Answers the question a run waits on (`ask_question`). */
export function answerCommandLine(workflowId: string): string {
  return `waveloop answer ${shellWord(workflowId)} "<your answer>"`;
}

/** Approves a call that waits for approval: it runs at once. */
export function approveCommandLine(workflowId: string, callId: string): string {
  return `waveloop approve ${shellWord(workflowId)} ${shellWord(callId)}`;
}

/** Denies a call that waits for approval; the model reads the reason. */
export function denyCommandLine(workflowId: string, callId: string): string {
  return `waveloop deny ${shellWord(workflowId)} ${shellWord(callId)} --reason "…"`;
}

/** Sends a conversation's next message. */
export function sendCommandLine(workflowId: string): string {
  return `waveloop send ${shellWord(workflowId)} "<your message>"`;
}

/** Ends a conversation. */
export function endCommandLine(workflowId: string): string {
  return `waveloop end ${shellWord(workflowId)}`;
}

/** `word` as a shell reads it back: as it is when it holds only safe characters, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
