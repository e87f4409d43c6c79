/**
 * Sensitive arguments (a card number, an IBAN, a password) as people and logs see them: masked,
 * `•••• 1234`, never in clear. The tool still gets the real value. No zod and no I/O here: workflow
 * code masks with it too.
 */

/** What a masked value shows: its last four characters when it has more than eight, else nothing. */
export function maskValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.length > 8 ? `•••• ${text.slice(-4)}` : '••••';
}

/** `args` with the value of each top-level field named in `sensitive` masked (`maskValue`); the rest as is. */
export function maskArgs(
  args: Record<string, unknown>,
  sensitive: readonly string[] | undefined,
): Record<string, unknown> {
  if (!sensitive?.length) return args;
  return Object.fromEntries(
    Object.entries(args).map(([field, value]) => [
      field,
      sensitive.includes(field) && value !== undefined && value !== null ? maskValue(value) : value,
    ]),
  );
}

/**
 * Edited arguments as the call will run with them: a sensitive field whose edited value is the mask
 * of its real value (the person left it as shown, `•••• 1234`) keeps the real value; any other value
 * replaces it. A person cannot see a sensitive value, so leaving its mask means "unchanged".
 */
export function unmaskArgs(
  edited: Record<string, unknown>,
  real: Record<string, unknown>,
  sensitive: readonly string[] | undefined,
): Record<string, unknown> {
  if (!sensitive?.length) return edited;
  return Object.fromEntries(
    Object.entries(edited).map(([field, value]) => [
      field,
      sensitive.includes(field) && field in real && real[field] != null && value === maskValue(real[field])
        ? real[field]
        : value,
    ]),
  );
}
