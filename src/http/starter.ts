import type { Person } from '../contract/people/people';
import { HttpError } from './errors';

/**
 * Who starts a run or a tree over HTTP: the person of the request's token. A body that names
 * someone else as `startedBy` is refused (400), so no token starts a run in another's name.
 */
export function starter(person: Person, given: string | undefined): string {
  if (given !== undefined && given !== person.name)
    throw new HttpError(
      400,
      'bad_request',
      `startedBy is the person of the token (${person.name}), not ${given}: leave it out.`,
    );
  return person.name;
}
