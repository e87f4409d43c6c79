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
