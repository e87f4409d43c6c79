import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** A project directory of a test, with its files, and how to remove it. */
export interface TestProject {
  dir: string;
  write(file: string, text: string): string;
  remove(): void;
}

/**
 * A user's project for a test: a directory with `files` (path → text) inside the repository's
 * `.test-projects/`, so that its config resolves `zod` as an installed project would.
 */
export function testProject(files: Record<string, string> = {}): TestProject {
  const dir = path.join(ROOT, '.test-projects', randomUUID());
  fs.mkdirSync(dir, { recursive: true });
  const write = (file: string, text: string) => {
    const full = path.join(dir, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
    return full;
  };
  for (const [file, text] of Object.entries(files)) write(file, text);
  return { dir, write, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
