/**
 * How far V8 lets the heap grow past its live size before a full collection. V8 picks a
 * factor between 1.1 and 4 from how fast it collects against how fast the program allocates;
 * a crawler allocates fast (bodies, parse trees, strings) and its collections are cheap, so
 * V8 settles near 4: a broad crawl with ~130 MB live peaked at 591-631 MiB RSS, mostly
 * garbage (bench/breadth.mjs, 2000 hosts). A factor of 1.5 held it at 319-321 MiB and cost no
 * CPU (0.61 against 0.69 ms per page in the same sitting: a smaller heap is kinder to the
 * caches; commit ef2deb7).
 *
 * Set for the daemon's process only (run, crawl, demo), at start; `node
 * --heap-growing-percent=N dist/crawld.mjs ...` overrides it (NODE_OPTIONS does not accept
 * the flag), and `--max-old-space-size` still caps the heap as before.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
