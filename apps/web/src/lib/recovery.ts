import type { Query } from "@tanstack/react-query";
import { isTransientProblem } from "./errors";
import type { SessionState } from "./session-store";

// After a server restart or an outage the console recovers by itself: queries that failed for a
// reason that may pass are fetched again on a timer (besides react-query's own refetch when the
// window regains focus or the network comes back), and so is the session check.

/** The wait before checking the session again, after `failures` failed checks in a row: 2 s, 4 s, 8 s, then 15 s. */
export function recoveryDelay(failures: number): number {
  return Math.min(1000 * 2 ** Math.max(1, failures), 15_000);
}

/** Between two rounds of attempts at a failed query; each round already retries with backoff (lib/errors.ts). */
export const RECOVERY_INTERVAL_MS = 5_000;

/**
 * react-query's `refetchInterval` for every query: none while the answer is good or the failure is
 * the request's own (a 4xx); otherwise another round of attempts every few seconds.
 */
export function recoveryInterval(query: Query): number | false {
  const { status, error } = query.state;
  return status === "error" && isTransientProblem(error) ? RECOVERY_INTERVAL_MS : false;
}

interface RecoverableSession {
  subscribe: (listener: () => void) => () => void;
  getState: () => SessionState;
  load: () => Promise<void>;
}

interface Clock {
  setTimeout: (callback: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const realClock: Clock = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * While the session check cannot reach the server (the console opened during an outage), asks
 * again with backoff, and at once when the browser says the network is back. Returns the stop.
 */
export function retryUnreachableSession(
  session: RecoverableSession,
  clock: Clock = realClock,
  onlineEvents:
    Pick<Window, "addEventListener" | "removeEventListener"> | undefined = typeof window ===
  "undefined"
    ? undefined
    : window,
): () => void {
  let timer: unknown;
  let failures = 0;
  const cancel = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const retryNow = () => {
    cancel();
    void session.load();
  };
  const onChange = () => {
    if (session.getState().status !== "unreachable") {
      failures = 0;
      cancel();
      return;
    }
    failures += 1;
    cancel();
    timer = clock.setTimeout(retryNow, recoveryDelay(failures));
  };
  const onOnline = () => {
    if (session.getState().status === "unreachable") retryNow();
  };
  const unsubscribe = session.subscribe(onChange);
  onlineEvents?.addEventListener("online", onOnline);
  onChange();
  return () => {
    cancel();
    unsubscribe();
    onlineEvents?.removeEventListener("online", onOnline);
  };
}
