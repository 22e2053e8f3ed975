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
