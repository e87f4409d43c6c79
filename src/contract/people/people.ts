import { z } from 'zod';
import { approversLabel, type ApprovalRequirement } from './approvals';

/**
 * The people who decide: each has a name, groups (`finance`, `ops`, …) and a token, kept only as
 * its SHA-256 digest. They come from the project config's `people` and from `WAVELOOP_HTTP_TOKENS`
 * (docs/security.md); `waveloop serve` knows a person by their token, and a worker turns an approval
 * rule's groups into the names of the people who may decide.
 */

/** A person: their name, groups, and the SHA-256 (hex) of their token. */
export interface Person {
  name: string;
  groups: string[];
  tokenSha256: string;
}

/** A person's or a group's name: no spaces, and none of `:`, `,` or `+`, which the token list uses. */
const NAME = /^[^\s:,+]+$/;

/** A person as the project config declares them (`people: [{ name, groups, tokenSha256 }]`). */
export const PersonSchema = z.strictObject({
  name: z.string().regex(NAME, 'a name has no spaces and none of : , +'),
  groups: z.array(z.string().regex(NAME, 'a group name has no spaces and none of : , +')).default([]),
  tokenSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'tokenSha256 is the SHA-256 of the token in 64 hex digits (`waveloop token` prints it)'),
});

/** Where people come from, for messages: `WAVELOOP_HTTP_TOKENS`, `people` of the config. */
export interface PeopleSource {
  source: string;
  people: readonly Person[];
}

/** What an approval rule's `approvers` stand for: the people who may decide, and the rule's words for them. */
export type ResolvedApprovers = { label: string; names: string[] } | { problem: string };

/** The people directory: every person once, each token once. */
export class People {
  private readonly byName = new Map<string, Person>();

  /** Throws a `TypeError` naming the problem: a person declared twice, or one token held by two people. */
  constructor(sources: readonly PeopleSource[] = []) {
    const from = new Map<string, string>();
    for (const { source, people } of sources) {
      for (const person of people) {
        const earlier = from.get(person.name);
        if (earlier)
          throw new TypeError(
            `${person.name} is declared twice (${earlier === source ? source : `${earlier} and ${source}`}).`,
          );
        const sharing = [...this.byName.values()].find((other) => other.tokenSha256 === person.tokenSha256);
        if (sharing) throw new TypeError(`${sharing.name} and ${person.name} share one token; give each their own.`);
        from.set(person.name, source);
        this.byName.set(person.name, { ...person, groups: [...new Set(person.groups)] });
      }
    }
  }

  get size(): number {
    return this.byName.size;
  }

  /** Everyone, in the order declared. */
  list(): Person[] {
    return [...this.byName.values()];
  }

  get(name: string): Person | undefined {
    return this.byName.get(name);
  }

  /** Every group someone is in. */
  groups(): string[] {
    return [...new Set(this.list().flatMap((person) => person.groups))];
  }

  /**
   * The names `approvers` stand for (a group: its members; a person: that person), in the order
   * declared; or the problem: a name that is neither a group nor a person.
   */
  resolve(approvers: readonly string[]): ResolvedApprovers {
    const known = this.groups();
    const unknown = approvers.filter((name) => !this.byName.has(name) && !known.includes(name));
    if (unknown.length) {
      return {
        problem:
          `approvers name ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} neither a group nor a person` +
          (known.length ? ` (groups: ${known.join(', ')})` : ' (no people are declared: see docs/security.md)'),
      };
    }
    const names = this.list()
      .filter((person) => approvers.includes(person.name) || person.groups.some((group) => approvers.includes(group)))
      .map((person) => person.name);
    return { label: approversLabel(approvers), names };
  }

  /**
   * What is wrong with `requirement` as a rule of `where` gives it, else undefined: approvers that
   * are neither a group nor a person, a quorum below 1 or above the number of people who could
   * approve (the approvers, else everyone declared; with four eyes, one fewer may approve the
   * run's calls).
   */
  problemOf(requirement: ApprovalRequirement, where: string): string | undefined {
    const { approvers, quorum, fourEyes } = requirement;
    let eligible = this.size;
    if (approvers) {
      const resolved = this.resolve(approvers);
      if ('problem' in resolved) return `${where}: ${resolved.problem}`;
      eligible = resolved.names.length;
    }
    if (quorum === undefined) return undefined;
    if (!Number.isInteger(quorum) || quorum < 1) return `${where}: quorum must be a whole number of at least 1`;
    if (this.size === 0 && !approvers) return undefined;
    const could = fourEyes ? eligible - 1 : eligible;
    if (quorum > could)
      return `${where}: quorum ${quorum} is more than the ${could} ${could === 1 ? 'person' : 'people'} who could approve${fourEyes ? ' (four eyes: the run’s starter may not)' : ''}`;
    return undefined;
  }
}
