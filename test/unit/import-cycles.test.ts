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
const UPPER = ['daemon', 'cli', 'cli.ts', 'demo', 'config', 'engine', 'admin'];

/** What each middle folder may import, besides its own files (docs/architecture.md). */
const ALLOWED: Record<string, readonly string[]> = {
  // The crawl loop: pure logic over ports; the logger's redaction is its only outside help.
  engine: ['core', 'ports', 'observe/logger.ts'],
  // The config file: its schema checks with the algorithms' own validators.
  config: ['core', 'ports', 'adapters/fetch/proxy.ts'],
  // The admin API reads the config and the daemon's API type, never the engine's internals.
  admin: ['core', 'ports', 'config', 'observe', 'daemon/daemon-types.ts'],
};

it('keeps engine, config and admin to what they may import', () => {
  const wrong: string[] = [];
  for (const [file, targets] of importGraph(SRC)) {
    const folder = file.split('/')[0]!;
    const allowed = ALLOWED[folder];
    if (!allowed) continue;
    for (const t of targets) {
      if (t.split('/')[0] === folder) continue;
      if (!allowed.some((a) => t === a || t.startsWith(`${a}/`))) wrong.push(`${file} -> ${t}`);
    }
  }
  expect(wrong).toEqual([]);
});

it('keeps the layers: core, ports, adapters and observe never import the daemon or the CLI', () => {
  const wrong: string[] = [];
  for (const [file, targets] of importGraph(SRC)) {
    if (!LOWER.includes(file.split('/')[0]!)) continue;
    for (const t of targets) if (UPPER.includes(t.split('/')[0]!)) wrong.push(`${file} -> ${t}`);
  }
  expect(wrong).toEqual([]);
});
