import { People } from '../../src/contract/people/people';
import { tokenSha256 } from '../../src/settings';

/** A person of a test: a name, a token in clear (the directory keeps its digest), groups. */
export interface TestPerson {
  name: string;
  token: string;
  groups?: string[];
}

/** The people directory of `people`, as `waveloop serve` and a worker build it. */
export function peopleWith(people: readonly TestPerson[]): People {
  return new People([
    {
      source: 'the test',
      people: people.map(({ name, token, groups = [] }) => ({ name, groups, tokenSha256: tokenSha256(token) })),
    },
  ]);
}
