import { z } from 'zod';
import { defineTool } from '../../tools/define';
import type { DemoDeps, User } from '../demo-db';

/**
 * `search_users`: users whose name contains the given text, case-insensitively, ordered by id.
 * Returns an empty array (not an error) when nobody matches.
 */
export function searchUsersTool(deps: DemoDeps) {
  const query = deps.db.prepare(
    'SELECT id, name, email, company FROM users WHERE instr(lower(name), lower(?)) > 0 ORDER BY id',
  );
  return defineTool({
    name: 'search_users',
    effect: 'read',
    description:
      'Finds users whose full name contains the given text (case-insensitive), e.g. "alice" or "Martin". ' +
      'Returns a JSON array of { id, name, email, company }; an empty array means nobody matched. ' +
      'Several users can share a first name: when more than one matches, ask which one is meant before changing anything.',
    parameters: z.object({
      name: z.string().trim().min(1).describe('Part of the name to look for, e.g. a first name, a last name or both.'),
    }),
    execute: ({ name }): User[] => query.all(name) as User[],
  });
}
