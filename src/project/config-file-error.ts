import * as path from 'node:path';

/** A config file that cannot be loaded or is not valid; the message names the file and the problem. */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError';

  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${path.relative(process.cwd(), file) || file}: ${problem}`);
  }
}
