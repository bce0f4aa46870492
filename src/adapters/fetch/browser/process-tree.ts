/** A browser's RSS is its processes' sum from /proc: an upper bound (shared pages count per process), as in `ps`. */
import { readdirSync, readFileSync } from 'node:fs';

const PAGE_SIZE = 4096;

/** Sum of the RSS of every descendant of `root` (not root itself); 0 where /proc is absent. */
export function descendantsRssBytes(root: number): number {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      // Fields after the command (which may hold spaces and parentheses): state ppid ...
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(rest[1]);
      // Field 24 of stat (22nd after the command) is RSS in pages.
      rss.set(pid, Number(rest[21]) * PAGE_SIZE);
      const list = children.get(ppid);
      if (list) list.push(pid);
      else children.set(ppid, [pid]);
    } catch {
      // exited while we read
    }
  }
  let total = 0;
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}
