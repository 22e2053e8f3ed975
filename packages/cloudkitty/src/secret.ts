import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A credential (password, application-credential secret, token) that reveals itself only to the
 * code that sends it: String(), JSON.stringify(), template strings and util.inspect (console.log,
 * pino) all print "[redacted]", so a config object or an error that holds one can be logged.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
