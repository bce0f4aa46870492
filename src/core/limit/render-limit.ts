import { type AimdOptions, aimdDefaults } from './aimd.js';

/**
 * The AIMD options of a host whose pages a browser pool of `poolPages` renders (a job with
 * render.kind browser), made from the host options `aimd`.
 *
 * The http default starts a host at `initialLimit` (8) and measures its baseline there: an
 * unloaded server answers 8 requests as fast as one. A render is our own CPU's work, and the
 * pool renders at most `poolPages` at once: started at or past the pool, the first probe
 * measures renders that queue for a page or for the CPU, the relative target is built on that
 * queue, and the limit then stays near the pool's cap whatever the knee is. So a render host
 * starts at half the pool (never above `initialLimit`): its probe measures renders that wait for
 * no page, and slow start's first doubling lands on the pool's cap and no further, so the limit
 * approaches the knee from below. Its later baseline probes run there too (not at `probeLimit`
 * when that is higher). docs/browser.md, _Limits_.
 */
export function renderLimitOptions(aimd: AimdOptions, poolPages: number): AimdOptions {
  const minLimit = aimd.minLimit ?? aimdDefaults.minLimit;
  const maxLimit = aimd.maxLimit ?? aimdDefaults.maxLimit;
  const half = Math.max(1, Math.floor(poolPages / 2));
  const initialLimit = Math.min(
    maxLimit,
    Math.max(minLimit, Math.min(aimd.initialLimit ?? aimdDefaults.initialLimit, half)),
  );
  const target = aimd.target ?? aimdDefaults.target;
  if (target.kind !== 'relative') return { ...aimd, initialLimit };
  const probeLimit = Math.min(target.probeLimit ?? aimdDefaults.target.probeLimit, initialLimit);
  return { ...aimd, initialLimit, target: { ...target, probeLimit } };
}
