import type { LimitAlgorithm } from './limit.js';

/** A limit that never moves (adaptive concurrency turned off). */
export class FixedLimit implements LimitAlgorithm {
  constructor(readonly limit: number) {}
  onSample(): void {}
  onChange(): () => void {
    return () => {};
  }
}
