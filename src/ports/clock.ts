/** Time comes in through this port so the core and the tests are deterministic. */
export interface Clock {
  now(): Date;
}
