import type { IncomingMessage } from "node:http";

/**
 * The database's version as each request sees it: looked up once, when the request first needs it
 * (to check a kept token verdict, then to serve a kept answer), and shared by both. A write that
 * was acknowledged before the request arrived is always seen; a write made while it is served
 * changes the version for the requests that follow.
 *
 * Only per request: a look shared by a whole event-loop turn would miss this process's own writes
 * made earlier in the same turn.
 */
export function createRequestVersions(look: () => number): (req: IncomingMessage) => number {
  const seen = new WeakMap<IncomingMessage, number>();
  return (req) => {
    let version = seen.get(req);
    if (version === undefined) {
      version = look();
      seen.set(req, version);
    }
    return version;
  };
}

/**
 * One number that moves whenever either of its parts does, for keying answers by two versions at
 * once (the database's and the rule set's clock epoch). Each new pair gets a new number, never one
 * given before, so an answer kept under a number can only be served for the very parts it was
 * computed at; parts seen out of order cost a recomputation, never a stale answer.
 */
export function createVersionCombiner(): (first: number, second: number) => number {
  let lastFirst = NaN;
  let lastSecond = NaN;
  let counter = 0;
  return (first, second) => {
    if (first !== lastFirst || second !== lastSecond) {
      lastFirst = first;
      lastSecond = second;
      counter++;
    }
    return counter;
  };
}
