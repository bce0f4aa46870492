/**
 * A small JSON path syntax for extraction rules (a subset of JSONPath, no dependency).
 *
 *   $                 the document (or the current item when rules run per item)
 *   $.a.b  a.b        member access; the leading `$` / `$.` is optional
 *   $['a b']  ["x"]   member access for names that are not identifiers
 *   [0]  [-1]         array index; negative counts from the end
 *   [*]  .*           every element of an array / every value of an object
 *
 * Missing members yield nothing, never an error: the last page of a cursor is no failure.
 */
import { JsonPathError } from '../../core/errors.js';

export { JsonPathError };

export type PathStep =
  | { readonly kind: 'member'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' };

export interface JsonPath {
  readonly source: string;
  readonly steps: readonly PathStep[];
  /** True when a wildcard may yield several matches. */
  readonly multi: boolean;
}

const IDENT = /[A-Za-z0-9_$-]/;

export function parseJsonPath(source: string): JsonPath {
  const s = source.trim();
  const steps: PathStep[] = [];
  const fail = (at: number, why: string): never => {
    throw new JsonPathError(`JSON path ${JSON.stringify(source)}: ${why} at offset ${at}`);
  };
  let i = 0;
  if (s.startsWith('$')) i = 1;
  else if (s === '') fail(0, 'empty path');
  else if (s[0] !== '[' && s[0] !== '.') {
    // A bare name starts the path: `items[0]` is `$.items[0]`.
    i = readMember(s, 0, steps, fail);
  }
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      if (s[i + 1] === '*') {
        steps.push({ kind: 'wildcard' });
        i += 2;
      } else {
        i = readMember(s, i + 1, steps, fail);
      }
    } else if (c === '[') {
      i = readBracket(s, i, steps, fail);
    } else {
      fail(i, `unexpected ${JSON.stringify(c)}`);
    }
  }
  return { source, steps, multi: steps.some((st) => st.kind === 'wildcard') };
}

function readMember(s: string, start: number, steps: PathStep[], fail: (at: number, why: string) => never) {
  let i = start;
  while (i < s.length && IDENT.test(s[i]!)) i++;
  if (i === start) fail(start, 'expected a member name');
  steps.push({ kind: 'member', name: s.slice(start, i) });
  return i;
}

function readBracket(s: string, start: number, steps: PathStep[], fail: (at: number, why: string) => never) {
  const q = s[start + 1];
  if (q === "'" || q === '"') {
    let i = start + 2;
    let name = '';
    while (i < s.length && s[i] !== q) {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      name += s[i];
      i++;
    }
    if (s[i] !== q || s[i + 1] !== ']') fail(start, 'unterminated quoted member');
    steps.push({ kind: 'member', name });
    return i + 2;
  }
  const end = s.indexOf(']', start);
  if (end < 0) fail(start, "missing ']'");
  const inner = s.slice(start + 1, end).trim();
  if (inner === '*') steps.push({ kind: 'wildcard' });
  else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
  else fail(start, `expected an index, '*' or a quoted name, got ${JSON.stringify(inner)}`);
  return end + 1;
}

export function evaluate(path: JsonPath, doc: unknown): unknown[] {
  let current: unknown[] = [doc];
  for (const step of path.steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'member') {
        if (isObject(v) && Object.hasOwn(v, step.name)) next.push(v[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const idx = step.index < 0 ? v.length + step.index : step.index;
          if (idx >= 0 && idx < v.length) next.push(v[idx]);
        }
      } else if (Array.isArray(v)) {
        next.push(...v);
      } else if (isObject(v)) {
        next.push(...Object.values(v));
      }
    }
    current = next;
  }
  return current;
}

/** Multi (a wildcard): all matches; else the first. */
export function select(path: JsonPath, doc: unknown): unknown {
  const matches = evaluate(path, doc);
  return path.multi ? matches : matches[0];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
