import { InvalidArgumentError, type Command } from 'commander';
import { PersonSchema } from '../../contract/people/people';
import { generateToken } from '../../http/tokens';
import { tokenSha256 } from '../../settings';
import { action, commaList, osUser, print } from '../support';

/**
 * `waveloop token`: a fresh token for a person of `waveloop serve`, its SHA-256, and the two ways to
 * declare them (docs/security.md): the `people` entry of waveloop.config.ts, which holds only the
 * digest and may be committed, and the `WAVELOOP_HTTP_TOKENS` entry, which holds the token itself.
 * Nothing is stored: the token is printed once.
 */

interface TokenOptions {
  name?: string;
  groups?: string[];
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('token')
    .description('make a token for a person of waveloop serve, and print its SHA-256 and how to declare it')
    .option('--name <name>', 'who holds it (default: your OS user name)', parseName)
    .option('--groups <groups>', 'their groups, comma-separated (finance,ops)', parseGroups)
    .option('--json', 'print { token, tokenSha256 } only')
    .action(action((options: TokenOptions) => token(options)));
}

async function token({ name = osUser(), groups = [], json }: TokenOptions): Promise<number> {
  const made = generateToken();
  const digest = tokenSha256(made);
  if (json) {
    print(JSON.stringify({ token: made, tokenSha256: digest }));
    return 0;
  }
  const entry = `{ name: ${quoted(name)}, groups: [${groups.map(quoted).join(', ')}], tokenSha256: ${quoted(digest)} }`;
  print(`Token:       ${made}`);
  print(`tokenSha256: ${digest}`);
  print();
  print(`Give the token to ${name}; it is not kept anywhere. Declare ${name} in one of two ways:`);
  print();
  print('- in waveloop.config.ts (it holds only the digest, so it may be committed):');
  print();
  print(`  people: [${entry}],`);
  print();
  print('- or in the environment of waveloop serve and the workers (it holds the token: keep it secret):');
  print();
  print(`  WAVELOOP_HTTP_TOKENS='${[name, made, ...(groups.length ? [groups.join('+')] : [])].join(':')}'`);
  print();
  print('Restart waveloop serve and the workers to take it (docs/security.md).');
  return 0;
}

/** A string as a single-quoted TypeScript literal. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A person's name, as the people directory takes it; a commander option parser. */
function parseName(value: string): string {
  const name = PersonSchema.shape.name.safeParse(value.trim());
  if (!name.success) throw new InvalidArgumentError(name.error.issues[0]!.message);
  return name.data;
}

/** Group names, comma-separated, as the people directory takes them; a commander option parser. */
function parseGroups(value: string): string[] {
  const groups = PersonSchema.shape.groups.safeParse([...new Set(commaList(value))]);
  if (!groups.success) throw new InvalidArgumentError(groups.error.issues[0]!.message);
  return groups.data;
}
