import { type AimdOptions, aimdDefaults } from './aimd.js';

/**
 * A render host starts at half the browser pool: a probe at or past the pool measures renders queued for a page,
 * and the limit then stays at the pool's cap whatever the knee. docs/browser.md, _Limits_.
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
