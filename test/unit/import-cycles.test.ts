import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { importCycles, importGraph } from '../helpers/import-graph.js';

/** No import cycles in src/ (a type-only or dynamic import closing a loop counts too). */
const SRC = resolve(import.meta.dirname, '../../src');

it('src/ has no import cycle', () => {
  const graph = importGraph(SRC);
  // The walk saw the tree: a broken walker would report no cycles on nothing.
  expect(graph.size).toBeGreaterThan(100);
  expect(graph.get('daemon/daemon.ts')).toContain('daemon/frontier-factory.ts');
  expect(importCycles(graph)).toEqual([]);
});

it('finds the cycles madge would: static, type-only, re-export and dynamic', () => {
  const dir = tempDir('crawld-cycles-');
  mkdirSync(join(dir, 'sub'));
  const files: Record<string, string> = {
    'a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'b.ts': "import type { A } from './c.js';\nexport const b = 1;\nexport type B = A;\n",
    'c.ts': "export { a } from './a.js';\nexport type A = number;\n",
    'd.ts':
      "// import { e } from './e.js';\nexport async function d() {\n  return import('./sub/e.js');\n}\n",
    'sub/e.ts': "import { d } from '../d.js';\nexport const e = d;\n",
    'f.ts': "import { a } from './a.js';\nimport x from 'node:fs';\nexport const f = [a, x];\n",
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  expect(importCycles(importGraph(dir)).sort()).toEqual([
    ['a.ts', 'b.ts', 'c.ts'],
    ['d.ts', 'sub/e.ts'],
  ]);
});

/** The layers of docs/architecture.md: the daemon (composition) and the CLI sit on top. */
const LOWER = ['core', 'ports', 'adapters', 'observe'];
const UPPER = ['daemon', 'cli', 'cli.ts', 'demo'];

it('keeps the layers: core, ports, adapters and observe never import the daemon or the CLI', () => {
  const wrong: string[] = [];
  for (const [file, targets] of importGraph(SRC)) {
    if (!LOWER.includes(file.split('/')[0]!)) continue;
    for (const t of targets) if (UPPER.includes(t.split('/')[0]!)) wrong.push(`${file} -> ${t}`);
  }
  expect(wrong).toEqual([]);
});
