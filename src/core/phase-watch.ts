import type { Clock, Timer } from './clock.js';
import type { ArmedTimeout, HostTimeouts } from './host-timeout.js';
import type { TimeoutPhase } from './timeout-phase.js';

/** One phase of one request, timed against its host's timeout (watchPhase). */
export interface PhaseWatch {
  readonly phase: TimeoutPhase;
  /** The timeout the phase is held to now (a request sent before its host was learned gets it later). */
  readonly armed: ArmedTimeout;
  /**
   * Something arrived inside the phase (a chunk of the body): the silence before it ends and
   * the timeout counts again from now.
   */
  progress(): void;
  /** The phase ended in time: its time (the body's: its longest silence) is a sample of the host. */
  done(): void;
  /** The request ended otherwise (an error, an abort, a hedge that won): nothing is learned. */
  cancel(): void;
  /**
   * Confirms the expiry `onDue` reported and backs the host's timeout off: false when the phase
   * moved on since (a response read in the same turn of the event loop), and nothing is recorded.
   */
  expire(): boolean;
}

/**
 * How often a request armed before its host's timeout was learned looks again: the first
 * requests to a host are sent before it has answered any, and one of them that hangs would
 * otherwise wait the configured timeout (15 s) after its host's own was learned (250 ms).
 */
export const UNLEARNED_RECHECK_MS = 1000;

/**
 * Watches `phase` of a request to `host` on `clock`: `onDue` runs once the phase has been
 * silent for its timeout, the host's learned one. A request sent before its host's timeout
 * was learned looks again every UNLEARNED_RECHECK_MS and is held to it once it is; until then
 * the configured timeouts (undici's) apply. The caller confirms with expire() before it gives
 * the request up, after letting the event loop read what already arrived: a timer fires before
 * the I/O of the same loop turn, so after a stall of this process's own the answer may be
 * waiting in the socket.
 *
 * The timer is armed once and re-armed only when it fires early (progress moved the deadline):
 * a body of many chunks costs no timer per chunk.
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
  /** The last progress (the start, or a body's last chunk), and the longest silence before it. */
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
    // Whole ms, at least one: a fraction of a ms left would be lost to rounding and spin.
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

  /** How long until the phase should be looked at again, or undefined when it is overdue now. */
  #nextLook(): number | undefined {
    if (!this.#armed.learned) {
      this.#armed = this.#timeouts.arm(this.#host, this.phase, this.#ceilingMs);
      if (!this.#armed.learned) return UNLEARNED_RECHECK_MS;
    }
    const waited = this.#clock.monotonic() - this.#last;
    if (waited < this.#armed.ms) return this.#armed.ms - waited;
    // Overdue. A body is timed by its silence alone; a request whose host's last answers were
    // as slow waits on, until it has waited twice as long as they took (PhaseEstimate.overdue).
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
