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

/**
 * Non-blank lines, and those of them that hold only comment: tokens and comment ranges from the
 * TypeScript parser (a scanner alone reads `//` inside a regex or a template as a comment).
 */
export function commentShare(text: string): { lines: number; commentLines: number } {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const code = new Set<number>();
  const comment = new Set<number>();
  const mark = (into: Set<number>, from: number, to: number) => {
    const a = sf.getLineAndCharacterOfPosition(from).line;
    const b = sf.getLineAndCharacterOfPosition(Math.max(from, to - 1)).line;
    for (let l = a; l <= b; l++) into.add(l);
  };
  const seen = new Set<number>();
  const comments = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      mark(comment, r.pos, r.end);
    }
  };
  const walk = (node: ts.Node) => {
    // JSDoc hangs in the tree as nodes of its own: it is comment, and its range is the comment's.
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    comments(ts.getLeadingCommentRanges(text, node.pos));
    comments(ts.getTrailingCommentRanges(text, node.end));
    const children = node.getChildren(sf);
    if (children.length === 0 && node.kind !== ts.SyntaxKind.EndOfFileToken)
      mark(code, node.getStart(sf), node.end);
    for (const c of children) walk(c);
  };
  walk(sf);
  let commentLines = 0;
  for (const l of comment) if (!code.has(l)) commentLines++;
  return { lines: new Set([...code, ...comment]).size, commentLines };
}

/** Every .ts file under dir (path relative to it). */
export function sourceFiles(dir: string): string[] {
  return tsFiles(dir).map((f) => relative(dir, f));
}
