/**
 * Why a domain operation refused: the domain's own vocabulary, free of any framework. The router
 * (trpc.ts) turns each kind into an API error, and so into an HTTP status.
 */
export type DomainErrorKind =
  | "invalid"
  | "not_found"
  | "conflict"
  | "forbidden"
  | "not_supported"
  /** The write named a revision the resource is no longer at (If-Match, HTTP 412). */
  | "stale";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const fail = {
  badRequest: (message: string) => new DomainError("invalid", message),
  notFound: (message: string) => new DomainError("not_found", message),
  conflict: (message: string) => new DomainError("conflict", message),
  forbidden: (message: string) => new DomainError("forbidden", message),
  notSupported: (message: string) => new DomainError("not_supported", message),
  stale: (message: string) => new DomainError("stale", message),
};
