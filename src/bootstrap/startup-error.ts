/**
 * A reason the service refuses to start that the operator fixes with a setting: the entry
 * point prints its message as one line, without a stack, and exits non-zero.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
