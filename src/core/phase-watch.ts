import type { Clock, Timer } from './clock.js';
import type { ArmedTimeout, HostTimeouts } from './host-timeout.js';
import type { TimeoutPhase } from './timeout-phase.js';

/** One phase of one request, timed against its host's timeout (watchPhase). */
export interface PhaseWatch {
  readonly phase: TimeoutPhase;
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
 * Watches `phase` of a request to `host` on `clock`: `onDue` runs once the phase has been
 * silent for its timeout (the host's learned one; a host whose timeout is not learned yet is
 * left to the configured timeouts, and no timer is armed). The caller confirms with expire()
 * before it gives the request up, after letting the event loop read what already arrived: a
 * timer fires before the I/O of the same loop turn, so after a stall of this process's own the
 * answer may be waiting in the socket.
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
  const armed = timeouts.arm(host, phase, ceilingMs);
  const startedAt = clock.monotonic();
  let last = startedAt;
  let longestSilence = 0;
  let ended = false;
  let due = false;
  let timer: Timer | undefined;

  const check = (): void => {
    timer = undefined;
    if (ended) return;
    const left = last + armed.ms - clock.monotonic();
    if (left > 0) {
      timer = clock.setTimer(check, left);
      return;
    }
    due = true;
    onDue();
  };
  if (armed.learned) timer = clock.setTimer(check, armed.ms);

  const end = (): boolean => {
    if (ended) return false;
    ended = true;
    timer?.cancel();
    timer = undefined;
    return true;
  };

  return {
    phase,
    armed,
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
