export type AccountErrorKind = "not_found" | "conflict" | "invalid";

/**
 * A refusal of an account operation, with a message meant for the person who asked. Callers map
 * `kind` onto their own errors (404, 409, 400); anything else thrown is a bug or an outage.
 */
export class AccountError extends Error {
  override readonly name = "AccountError";

  constructor(
    readonly kind: AccountErrorKind,
    message: string,
  ) {
    super(message);
  }
}
