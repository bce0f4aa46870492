import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { commentShare, sourceFiles } from '../helpers/source-size.js';

/**
 * What a newcomer reads: files named for what they are (no two share a base name), folders
 * short enough to scan, Lua in .lua files, and comments that say why in a line or two.
 */
const SRC = resolve(import.meta.dirname, '../../src');
const files = sourceFiles(SRC);

/** At most this many files directly in one folder of src/engine/. */
const MAX_ENGINE_FLAT = 15;
/** Files that still carry Lua in strings (the list only shrinks). */
const LUA_IN_TS: string[] = [];
/** Comment-only lines as a share of the non-blank lines of src/. */
const MAX_COMMENT_SHARE = 0.12;

it('reads the whole tree', () => {
  expect(files.length).toBeGreaterThan(300);
});

it('gives every source file a base name of its own', () => {
  const byName = new Map<string, string[]>();
  for (const f of files) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);
  expect([...byName.values()].filter((fs) => fs.length > 1)).toEqual([]);
});

it('keeps each folder of src/engine/ to a list one can scan', () => {
  const walk = (dir: string): [string, number][] => {
    const entries = readdirSync(dir);
    const own = entries.filter((e) => e.endsWith('.ts')).length;
    const subs = entries.filter((e) => statSync(join(dir, e)).isDirectory());
    return [[dir, own], ...subs.flatMap((s) => walk(join(dir, s)))];
  };
  const engine = walk(join(SRC, 'engine'));
  expect(engine.length).toBeGreaterThan(0);
  expect(engine.filter(([, n]) => n > MAX_ENGINE_FLAT)).toEqual([]);
});

it('keeps Lua in .lua files', () => {
  const withLua = files.filter((f) => readFileSync(join(SRC, f), 'utf8').includes('redis.call('));
  expect(withLua).toEqual(LUA_IN_TS);
});

// Parsing every file takes 12 s alone, over 30 s beside the other unit files on a loaded 2-core machine.
it('keeps comments to a share of the source', () => {
  let lines = 0;
  let commentLines = 0;
  for (const f of files) {
    const s = commentShare(readFileSync(join(SRC, f), 'utf8'));
    lines += s.lines;
    commentLines += s.commentLines;
  }
  expect(lines).toBeGreaterThan(20_000);
  expect(commentLines / lines, `${commentLines} of ${lines} lines`).toBeLessThanOrEqual(MAX_COMMENT_SHARE);
}, 120_000);

it('counts comment lines as the parser sees them', () => {
  const s = commentShare(
    [
      '/**',
      ' * doc',
      ' */',
      'const a = 1; // tail',
      '',
      'const r = /\\/\\/x/;',
      'const t = `a ${a} // b`;',
      '// own',
    ].join('\n'),
  );
  expect(s).toEqual({ lines: 7, commentLines: 4 });
});
