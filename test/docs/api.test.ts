import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');
const API = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');

const ENTRIES = ['src/index.ts', 'src/workflows/index.ts'];
const PROGRAM = ts.createProgram(
  ENTRIES.map((entry) => path.join(ROOT, entry)),
  { strict: true, esModuleInterop: true, skipLibCheck: true, noEmit: true },
);

/** The names an entry point exports, as TypeScript sees them (values and types). */
function exportsOf(entry: string): string[] {
  const checker = PROGRAM.getTypeChecker();
  const module = checker.getSymbolAtLocation(PROGRAM.getSourceFile(path.join(ROOT, entry))!)!;
  return checker.getExportsOfModule(module).map((symbol) => symbol.name);
}

/** The names docs/api.md describes: the first code span of each list item. */
const DOCUMENTED = new Set([...API.matchAll(/^- `([A-Za-z_][\w]*)/gm)].map((match) => match[1]));

describe('docs/api.md', () => {
  it.each(ENTRIES)('describes every export of %s', (entry) => {
    const names = exportsOf(entry);
    expect(names.length).toBeGreaterThan(1);
    expect(names.filter((name) => !DOCUMENTED.has(name))).toEqual([]);
  });

  it('describes nothing the entry points do not export', () => {
    const exported = new Set([...exportsOf('src/index.ts'), ...exportsOf('src/workflows/index.ts')]);
    expect([...DOCUMENTED].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('the entry points name their exports: no export *', () => {
    for (const entry of ENTRIES) {
      expect(fs.readFileSync(path.join(ROOT, entry), 'utf8')).not.toMatch(/export \*/);
    }
  });
});
