import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Line counts of a TypeScript source tree, read with the TypeScript compiler's own parser:
 * each file, and each function in it (declarations, methods, constructors, accessors, arrow
 * functions and function expressions), from its first token to its closing brace. A nested
 * function counts inside its parent too.
 */
export interface FileSize {
  readonly file: string;
  readonly lines: number;
}

export interface FunctionSize extends FileSize {
  /** `Class.method`, `name`, or `<anonymous>:LINE` when the parser gives it none. */
  readonly name: string;
  readonly line: number;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Lines as `wc -l` counts them (a final newline ends the last line, it does not add one). */
export function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function nameOf(node: ts.FunctionLikeDeclaration, sf: ts.SourceFile, line: number): string {
  const own = node.name && !ts.isComputedPropertyName(node.name) ? node.name.getText(sf) : undefined;
  let name = own;
  if (ts.isConstructorDeclaration(node)) name = 'constructor';
  const parent = node.parent;
  if (!name && ts.isVariableDeclaration(parent)) name = parent.name.getText(sf);
  if (!name && ts.isPropertyAssignment(parent)) name = parent.name.getText(sf);
  if (!name && ts.isPropertyDeclaration(parent)) name = parent.name.getText(sf);
  if (!name) return `<anonymous>:${line}`;
  const cls = ts.isClassLike(parent) ? parent.name?.getText(sf) : undefined;
  return cls ? `${cls}.${name}` : name;
}

export function sourceSizes(root: string): { files: FileSize[]; functions: FunctionSize[] } {
  const files: FileSize[] = [];
  const functions: FunctionSize[] = [];
  for (const path of tsFiles(root)) {
    const file = relative(root, path);
    const text = readFileSync(path, 'utf8');
    files.push({ file, lines: lineCount(text) });
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(fn.getEnd()).line;
        functions.push({ file, name: nameOf(fn, sf, first + 1), line: first + 1, lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { files, functions };
}
