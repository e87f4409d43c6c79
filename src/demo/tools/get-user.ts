import { z } from 'zod';
import { defineTool, ToolError } from '../../tools/define';
import { findUser, type DemoDeps, type User } from '../demo-db';

/** `get_user`: one user by id; an unknown id throws `No user with id N`. */
export function getUserTool(deps: DemoDeps) {
  return defineTool({
    name: 'get_user',
    effect: 'read',
    description:
      'Reads one user by id and returns { id, name, email, company }. ' +
      'Use search_users first when you only know the name.',
    parameters: z.object({
      id: z.number().int().positive().describe('The user id, as returned by search_users.'),
    }),
    execute: ({ id }): User => {
      const user = findUser(deps.db, id);
      if (!user) throw new ToolError(`No user with id ${id}. Use search_users to find the right id.`);
      return user;
    },
  });
}
