/**
 * What every domain error is: a stable `code` (docs/api.md "Error codes") and details; the classes
 * are in errors.ts (general, payments, trading) and feature-errors.ts (comments, images, fair launches).
 */
export type ErrorDetails = Record<string, unknown>;

export abstract class DomainError extends Error {
  abstract readonly code: string;
  readonly details: ErrorDetails | undefined;

  /** `cause` keeps what went wrong underneath (a driver error): logged, never sent to the caller. */
  constructor(message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.details = details;
  }
}
