/** Between a shared frontier's daemons: a hungry one says so; busy ones hand back what they hold beyond a look-ahead. */
export interface WorkSharing {
  /** Epoch ms on the daemon's clock. */
  hungry(now: number, untilMs: number): Promise<void>;
  fed(): Promise<void>;
  othersHungry(now: number): Promise<boolean>;
}
