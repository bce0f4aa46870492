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
  let armed = timeouts.arm(host, phase, ceilingMs);
  const startedAt = clock.monotonic();
  let last = startedAt;
  let longestSilence = 0;
  let ended = false;
  let due = false;
  let timer: Timer | undefined;

  const check = (): void => {
    timer = undefined;
    if (ended) return;
    if (!armed.learned) {
      armed = timeouts.arm(host, phase, ceilingMs);
      if (!armed.learned) {
        timer = clock.setTimer(check, UNLEARNED_RECHECK_MS);
        return;
      }
    }
    const left = last + armed.ms - clock.monotonic();
    if (left > 0) {
      timer = clock.setTimer(check, left);
      return;
    }
    due = true;
    onDue();
  };
  if (timeouts.enabled) timer = clock.setTimer(check, armed.learned ? armed.ms : UNLEARNED_RECHECK_MS);

  const end = (): boolean => {
    if (ended) return false;
    ended = true;
    timer?.cancel();
    timer = undefined;
    return true;
  };

  return {
    phase,
    get armed() {
      return armed;
    },
    progress() {
      if (ended) return;
      const now = clock.monotonic();
      longestSilence = Math.max(longestSilence, now - last);
      last = now;
      if (due) {
        due = false;
        timer = clock.setTimer(check, armed.ms);
      }
    },
    done() {
      const now = clock.monotonic();
      if (!end()) return;
      const ms = phase === 'body' ? Math.max(longestSilence, now - last) : now - startedAt;
      timeouts.sample(host, phase, ms);
    },
    cancel() {
      end();
    },
    expire() {
      if (ended || !due) return false;
      end();
      timeouts.expired(host, phase, armed);
      return true;
    },
  };
}
