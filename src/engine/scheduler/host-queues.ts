import type { Task } from '../../ports/frontier.js';

/**
 * Leased tasks waiting for their host's gate, one FIFO per host, visited round-robin so a
 * slow, throttled or broken host never blocks the others. A host told to wait is parked: out
 * of the round until unparked, so a pump does not walk past thousands of hosts in their gap.
 */
export class HostQueues {
  readonly #queues = new Map<string, Task[]>();
  readonly #parked = new Map<string, Task[]>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(task: Task): void {
    let q = this.#queues.get(task.host) ?? this.#parked.get(task.host);
    if (!q) {
      q = [];
      this.#queues.set(task.host, q);
    }
    q.push(task);
    this.#size++;
  }

  hostSize(host: string): number {
    return this.#queue(host)?.length ?? 0;
  }

  /** Every host with tasks, parked or not. */
  hosts(): string[] {
    return [...this.#queues.keys(), ...this.#parked.keys()];
  }

  /** The hosts in the round (not parked), in turn order. */
  readyHosts(): string[] {
    return [...this.#queues.keys()];
  }

  /** The parked hosts (each told to wait). */
  parkedHosts(): IterableIterator<string> {
    return this.#parked.keys();
  }

  park(host: string): void {
    const q = this.#queues.get(host);
    if (!q) return;
    this.#queues.delete(host);
    this.#parked.set(host, q);
  }

  /** Back in the round, last in turn. */
  unpark(host: string): void {
    const q = this.#parked.get(host);
    if (!q) return;
    this.#parked.delete(host);
    this.#queues.set(host, q);
  }

  peek(host: string): Task | undefined {
    return this.#queue(host)?.[0];
  }

  shift(host: string): Task | undefined {
    const q = this.#queue(host);
    const t = q?.shift();
    if (!t) return undefined;
    this.#size--;
    this.#requeue(host, q!);
    return t;
  }

  /** A job limit may hold the head back. */
  find(host: string, pred: (task: Task) => boolean): Task | undefined {
    return this.#queue(host)?.find(pred);
  }

  remove(host: string, task: Task): boolean {
    const q = this.#queue(host);
    const i = q ? q.indexOf(task) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    this.#size--;
    this.#requeue(host, q);
    return true;
  }

  /** The host's last n tasks (the ones it would start last); its turn stays. */
  takeLast(host: string, n: number): Task[] {
    const q = this.#queue(host);
    if (!q || n <= 0) return [];
    const last = q.splice(Math.max(0, q.length - n));
    this.#size -= last.length;
    if (q.length === 0) this.#drop(host);
    return last;
  }

  take(host: string): Task[] {
    const q = this.#queue(host) ?? [];
    this.#drop(host);
    this.#size -= q.length;
    return q;
  }

  takeAll(): Task[] {
    const all: Task[] = [];
    for (const host of this.hosts()) all.push(...this.take(host));
    return all;
  }

  #queue(host: string): Task[] | undefined {
    return this.#queues.get(host) ?? this.#parked.get(host);
  }

  #drop(host: string): void {
    this.#queues.delete(host);
    this.#parked.delete(host);
  }

  /** After a start: the host goes last in turn (a parked one stays parked); empty, it goes. */
  #requeue(host: string, q: Task[]): void {
    if (this.#parked.has(host)) {
      if (q.length === 0) this.#parked.delete(host);
      return;
    }
    this.#queues.delete(host);
    if (q.length > 0) this.#queues.set(host, q);
  }
}
