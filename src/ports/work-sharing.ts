/**
 * Work sharing between the daemons of one shared frontier: a daemon that finds
 * nothing to lease while it could start more says it is hungry, until a time; busy daemons
 * ask, every so often, whether another one is, and if so hand back what they hold beyond a
 * short look-ahead, so that it leases that at its next poll (engine/scheduler/work-share.ts). A
 * frontier no other daemon shares has no such port (the scheduler shares nothing).
 */
export interface WorkSharing {
  /**
   * This daemon is hungry until `untilMs` (epoch ms, the daemon's clock; a later call moves
   * it); `now` is that clock's time, before which other marks have lapsed.
   */
  hungry(now: number, untilMs: number): Promise<void>;
  /** This daemon is hungry no more (it stops): others need not wait for its mark to lapse. */
  fed(): Promise<void>;
  /** Whether another daemon of the frontier is hungry at `now` (epoch ms). */
  othersHungry(now: number): Promise<boolean>;
}
