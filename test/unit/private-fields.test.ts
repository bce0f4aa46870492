import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

/**
 * Names: a class keeps its own state in `#` fields, which are private at run time
 * too, never in TypeScript's `private` or `protected` (erased at compile time, so they read
 * like a promise and keep none). Constructor parameter properties included.
 */
const SRC = resolve(import.meta.dirname, '../../src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `LINE name` of every member or parameter of `sf` marked private or protected. */
function privatesIn(sf: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
    const hidden = (m: ts.ModifierLike) =>
      m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword;
    if (modifiers.some(hidden)) {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      found.push(`${line} ${(node as { name?: ts.Node }).name?.getText(sf) ?? '?'}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

it('src/ has no TypeScript private or protected members: # fields only', () => {
  const files = tsFiles(SRC);
  expect(files.length).toBeGreaterThan(100);
  const found = files.flatMap((f) =>
    privatesIn(parse(f, readFileSync(f, 'utf8'))).map((p) => `${relative(SRC, f)}:${p}`),
  );
  expect(found).toEqual([]);
});

it('finds private and protected members and parameter properties', () => {
  const text = [
    'class A {',
    '  private a = 1;',
    '  protected b(): void {}',
    '  #ok = 2;',
    '  constructor(private readonly c: number, readonly d: number) {}',
    '}',
  ].join('\n');
  expect(privatesIn(parse('a.ts', text))).toEqual(['2 a', '3 b', '5 c']);
});
