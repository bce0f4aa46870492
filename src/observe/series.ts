import type { Counter } from 'prom-client';
import type { HostLabels } from './host-labels.js';

/** Starts a counter's series at 0 for each of `values` of `label` (with `fixed` labels too). */
export function zero<L extends string>(
  c: Counter<L>,
  label: L,
  values: readonly string[],
  fixed: Record<string, string> = {},
): void {
  for (const v of values) c.inc({ ...fixed, [label]: v } as Record<L, string>, 0);
}

/** Per-host series start at 0 when a label first appears, so a rate over them has a start. */
export class HostSeries {
  readonly #hosts: HostLabels;
  readonly #named = new Set<string>();
  readonly #starters: ((label: string) => void)[] = [];

  constructor(hosts: HostLabels) {
    this.#hosts = hosts;
  }

  /** Called with each new host label, and with the labels already seen. */
  onLabel(start: (label: string) => void): void {
    this.#starters.push(start);
    for (const label of this.#named) start(label);
  }

  observe(host: string): string {
    const label = this.#hosts.observe(host);
    this.start(label);
    return label;
  }

  start(label: string): void {
    if (this.#named.has(label)) return;
    this.#named.add(label);
    for (const start of this.#starters) start(label);
  }

  /** The label of `host` without counting a request. */
  label(host: string): string {
    return this.#hosts.label(host);
  }

  /** The labels whose series were started (`other` and the named hosts so far). */
  labels(): IterableIterator<string> {
    return this.#named.values();
  }
}
