import type { Clock, Timer } from './clock.js';
import type { ArmedTimeout, HostTimeouts } from './host-timeout.js';
import type { TimeoutPhase } from './timeout-phase.js';

export interface PhaseWatch {
  readonly phase: TimeoutPhase;
  readonly armed: ArmedTimeout;
  /** A body chunk arrived: the timeout counts again from now. */
  progress(): void;
  /** A body's sample is its longest silence. */
  done(): void;
  cancel(): void;
  /** false when the phase moved on since onDue (a response read in the same loop turn): nothing is recorded. */
  expire(): boolean;
}

/** A request sent before its host's timeout was learned would otherwise wait the configured 15 s. */
export const UNLEARNED_RECHECK_MS = 1000;

/**
 * `onDue` runs once the phase was silent for its host's learned timeout. Callers confirm with expire() after letting
 * the loop read what arrived: a timer fires before the same turn's I/O. The timer re-arms only when it fires early.
 */
export function watchPhase(
  timeouts: HostTimeouts,
  clock: Clock,
  host: string,
  phase: TimeoutPhase,
  ceilingMs: number,
  onDue: () => void,
): PhaseWatch {
  return new Watch(timeouts, clock, host, phase, ceilingMs, onDue);
}

class Watch implements PhaseWatch {
  readonly phase: TimeoutPhase;
  readonly #timeouts: HostTimeouts;
  readonly #clock: Clock;
  readonly #host: string;
  readonly #ceilingMs: number;
  readonly #onDue: () => void;
  readonly #startedAt: number;
  #armed: ArmedTimeout;
  #last: number;
  #longestSilence = 0;
  #timer: Timer | undefined;
  #ended = false;
  #due = false;

  constructor(
    timeouts: HostTimeouts,
    clock: Clock,
    host: string,
    phase: TimeoutPhase,
    ceilingMs: number,
    onDue: () => void,
  ) {
    this.phase = phase;
    this.#timeouts = timeouts;
    this.#clock = clock;
    this.#host = host;
    this.#ceilingMs = ceilingMs;
    this.#onDue = onDue;
    this.#armed = timeouts.arm(host, phase, ceilingMs);
    this.#startedAt = clock.monotonic();
    this.#last = this.#startedAt;
    if (timeouts.enabled) this.#arm(this.#armed.learned ? this.#armed.ms : UNLEARNED_RECHECK_MS);
  }

  get armed(): ArmedTimeout {
    return this.#armed;
  }

  progress(): void {
    if (this.#ended) return;
    const now = this.#clock.monotonic();
    this.#longestSilence = Math.max(this.#longestSilence, now - this.#last);
    this.#last = now;
    if (this.#due) {
      this.#due = false;
      this.#arm(this.#armed.ms);
    }
  }

  done(): void {
    const now = this.#clock.monotonic();
    if (!this.#end()) return;
    const ms =
      this.phase === 'body' ? Math.max(this.#longestSilence, now - this.#last) : now - this.#startedAt;
    this.#timeouts.sample(this.#host, this.phase, ms);
  }

  cancel(): void {
    this.#end();
  }

  expire(): boolean {
    if (this.#ended || !this.#due) return false;
    this.#end();
    this.#timeouts.expired(this.#host, this.phase, this.#armed);
    return true;
  }

  #arm(delayMs: number): void {
    // Whole ms, at least one: a fraction would round to 0 and spin.
    this.#timer = this.#clock.setTimer(() => this.#check(), Math.max(1, Math.ceil(delayMs)));
  }

  #check(): void {
    this.#timer = undefined;
    if (this.#ended) return;
    const next = this.#nextLook();
    if (next !== undefined) {
      this.#arm(next);
      return;
    }
    this.#due = true;
    this.#onDue();
  }

  #nextLook(): number | undefined {
    if (!this.#armed.learned) {
      this.#armed = this.#timeouts.arm(this.#host, this.phase, this.#ceilingMs);
      if (!this.#armed.learned) return UNLEARNED_RECHECK_MS;
    }
    const waited = this.#clock.monotonic() - this.#last;
    if (waited < this.#armed.ms) return this.#armed.ms - waited;
    // A body is timed by its silence alone; otherwise a host whose last answers were as slow waits on.
    if (this.phase !== 'body' && this.#timeouts.overdue(this.#host, this.phase, waited) === 'slow') {
      const recent = this.#timeouts.estimate(this.#host, this.phase)?.recentMaxMs ?? 0;
      return 2 * recent - waited + 1;
    }
    return undefined;
  }

  #end(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    return true;
  }
}
