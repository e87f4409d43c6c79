import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const WORKFLOWS_INDEX = path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts');

/**
 * The modules a workflow evaluates when it starts: everything src/workflows/index.ts imports, at
 * any depth, by `import` or `export … from` that is not type-only (those vanish when compiled).
 * Modules loaded on first use (src/workflows/lazy.ts, by `require`) are not followed.
 */
function eagerImports(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    const specifiers: string[] = [];
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        const typeOnly =
          clause?.isTypeOnly ||
          (clause &&
            !clause.name &&
            clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly));
        if (!typeOnly) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
      } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
        const named =
          statement.exportClause && ts.isNamedExports(statement.exportClause)
            ? statement.exportClause.elements
            : undefined;
        if (!named || !named.every((e) => e.isTypeOnly))
          specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
      }
    }
    graph.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), `${specifier}.ts`));
    }
  }
  return graph;
}

describe('the workflow bundle', () => {
  it('imports no zod where every workflow evaluates it at start (validation is loaded on first use)', () => {
    const graph = eagerImports(WORKFLOWS_INDEX);
    const relative = (file: string) => path.relative(path.join(__dirname, '..', '..'), file);
    const packages = [...graph.entries()].flatMap(([file, specifiers]) =>
      specifiers.filter((s) => !s.startsWith('.')).map((s) => `${relative(file)} → ${s}`),
    );
    // Reached through the graph: the workflows themselves, and the zod-free parts of src/contract.
    expect([...graph.keys()].map(relative)).toEqual(
      expect.arrayContaining([
        'src/workflows/agent-loop.ts',
        'src/workflows/goal-tree/pursue-goal.ts',
        'src/contract/model/usage.ts',
      ]),
    );
    expect(packages.filter((edge) => !/→ @temporalio\/(workflow|common)$/.test(edge))).toEqual([]);
  });
});
