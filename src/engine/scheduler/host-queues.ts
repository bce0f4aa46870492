import type { Task } from '../../ports/frontier.js';

/**
 * Leased tasks waiting for their host's gate, one FIFO per host, visited round-robin so a
 * slow, throttled or broken host never blocks the others.
 */
export class HostQueues {
  readonly #queues = new Map<string, Task[]>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(task: Task): void {
    let q = this.#queues.get(task.host);
    if (!q) {
      q = [];
      this.#queues.set(task.host, q);
    }
    q.push(task);
    this.#size++;
  }

  hostSize(host: string): number {
    return this.#queues.get(host)?.length ?? 0;
  }

  hosts(): string[] {
    return [...this.#queues.keys()];
  }

  peek(host: string): Task | undefined {
    return this.#queues.get(host)?.[0];
  }

  shift(host: string): Task | undefined {
    const q = this.#queues.get(host);
    const t = q?.shift();
    if (!t) return undefined;
    this.#size--;
    this.#queues.delete(host);
    if (q && q.length > 0) this.#queues.set(host, q);
    return t;
  }

  /** A job limit may hold the head back. */
  find(host: string, pred: (task: Task) => boolean): Task | undefined {
    return this.#queues.get(host)?.find(pred);
  }

  remove(host: string, task: Task): boolean {
    const q = this.#queues.get(host);
    const i = q ? q.indexOf(task) : -1;
    if (!q || i < 0) return false;
    if (i === 0) return this.shift(host) !== undefined;
    q.splice(i, 1);
    this.#size--;
    this.#queues.delete(host);
    this.#queues.set(host, q);
    return true;
  }

  /** The host's last n tasks (the ones it would start last); its turn stays. */
  takeLast(host: string, n: number): Task[] {
    const q = this.#queues.get(host);
    if (!q || n <= 0) return [];
    const last = q.splice(Math.max(0, q.length - n));
    this.#size -= last.length;
    if (q.length === 0) this.#queues.delete(host);
    return last;
  }

  take(host: string): Task[] {
    const q = this.#queues.get(host) ?? [];
    this.#queues.delete(host);
    this.#size -= q.length;
    return q;
  }

  takeAll(): Task[] {
    const all: Task[] = [];
    for (const host of [...this.#queues.keys()]) all.push(...this.take(host));
    return all;
  }
}
