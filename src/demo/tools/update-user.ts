import { z } from 'zod';
import { defineTool, ToolError } from '../../tools/define';
import { findUser, type DemoDeps, type User } from '../demo-db';

const TOOL_NAME = 'update_user';

/**
 * `update_user`: changes a user's name, email and/or company and returns the updated user.
 *
 * Idempotent per tool call: in one `BEGIN IMMEDIATE` transaction it looks up `context.idempotencyKey`
 * in `tool_effects`; when found it returns the stored result and changes nothing, otherwise it updates
 * the row and stores the result under the key. A retried attempt of the same call (same key) therefore
 * takes effect once, even when it runs while the first attempt is still finishing; a new call (new key)
 * applies again. An unknown id throws and stores nothing.
 */
export function updateUserTool(deps: DemoDeps) {
  const { db } = deps;
  const findEffect = db.prepare('SELECT result FROM tool_effects WHERE idempotency_key = ?');
  const saveEffect = db.prepare(
    'INSERT INTO tool_effects (idempotency_key, tool, result, created_at) VALUES (?, ?, ?, ?)',
  );
  const update = db.prepare(
    `UPDATE users SET name = coalesce(@name, name), email = coalesce(@email, email),
       company = coalesce(@company, company) WHERE id = @id`,
  );

  return defineTool({
    name: TOOL_NAME,
    effect: 'idempotent',
    description:
      "Changes a user's name, email and/or company; fields you leave out keep their value. " +
      'Returns the updated user { id, name, email, company }. Give at least one field to change. ' +
      'Look the user up first (search_users / get_user) so you update the right person.',
    // A change to a person's record is a side effect a person signs off (waveloop approve / deny).
    requiresApproval: true,
    parameters: z
      .object({
        id: z.number().int().positive().describe('The id of the user to change.'),
        name: z.string().trim().min(1).optional().describe('New full name.'),
        email: z.email().optional().describe('New email address.'),
        company: z.string().trim().min(1).optional().describe('New company name, e.g. "EPAM".'),
      })
      .refine((args) => args.name !== undefined || args.email !== undefined || args.company !== undefined, {
        message: 'Give at least one of name, email or company to change.',
      }),
    // What the person deciding sees: whose record this is, and each field before → after.
    preview: (args) => {
      const user = findUser(db, args.id);
      if (!user) return `No user with id ${args.id}: the call would fail.`;
      const fields = (['name', 'email', 'company'] as const).filter((field) => args[field] !== undefined);
      return {
        text: `${user.name} (user ${user.id})`,
        changes: fields.map((field) => ({ field, before: user[field], after: args[field] })),
      };
    },
    execute: (args, context): User =>
      db
        .transaction((): User => {
          const stored = findEffect.get(context.idempotencyKey) as { result: string } | undefined;
          if (stored) return JSON.parse(stored.result) as User;

          const changed = update.run({
            id: args.id,
            name: args.name ?? null,
            email: args.email ?? null,
            company: args.company ?? null,
          });
          const user = changed.changes === 1 ? findUser(db, args.id) : undefined;
          if (!user) throw new ToolError(`No user with id ${args.id}. Use search_users to find the right id.`);

          saveEffect.run(context.idempotencyKey, TOOL_NAME, JSON.stringify(user), deps.now().toISOString());
          return user;
        })
        .immediate(),
  });
}
