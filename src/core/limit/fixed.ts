import type { LimitAlgorithm } from './limit.js';

export class FixedLimit implements LimitAlgorithm {
  constructor(readonly limit: number) {}
  onSample(): void {}
  onChange(): () => void {
    return () => {};
  }
}
