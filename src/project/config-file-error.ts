import * as path from 'node:path';

/**
 * A config file that cannot be loaded or is not valid; the message names the file (relative to
 * `cwd`, by default the process's) and the problem.
 */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError';

  constructor(
    readonly file: string,
    problem: string,
    cwd = process.cwd(),
  ) {
    super(`${path.relative(cwd, file) || file}: ${problem}`);
  }
}
