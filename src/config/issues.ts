/** zod issues as the config check and the admin API print them: `jobs[0].seeds[1]: message`. */
import type { z } from 'zod';

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * A union's "Invalid input" hides which field was wrong: when exactly one branch got past its
 * type check, that branch's issues say what to fix.
 */
function unionBranch(issue: z.core.$ZodIssueInvalidUnion): readonly z.core.$ZodIssue[] | undefined {
  const deeper = issue.errors.filter((branch) => branch.some((i) => i.path.length > 0));
  if (deeper.length !== 1) return undefined;
  return deeper[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }));
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const branch = issue.code === 'invalid_union' ? unionBranch(issue) : undefined;
    if (branch) {
      out.push(...formatIssues(branch));
    } else if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push(`${formatPath([...issue.path, key])}: unknown key`);
    } else {
      out.push(`${formatPath(issue.path)}: ${issue.message}`);
    }
  }
  return out;
}
