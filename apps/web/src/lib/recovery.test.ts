import { environmentManager, QueryClient, QueryObserver } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recoveryDelay, recoveryInterval, retryUnreachableSession } from "./recovery";
import type { SessionState } from "./session-store";

const unreachable = () => TRPCClientError.from(new TypeError("Failed to fetch"));
const refused = () =>
  new TRPCClientError("No such field", {
    result: { error: { message: "No such field", code: -32600, data: { code: "NOT_FOUND" } } },
  });

describe("recovery delays", () => {
  it("space attempts out to 15 s at most", () => {
    expect([1, 2, 3, 4, 5, 10].map(recoveryDelay)).toEqual([2000, 4000, 8000, 15000, 15000, 15000]);
  });
});

describe("queries that failed are fetched again until the server answers", () => {
  // Without a window react-query takes Node for a server and schedules no refetch timers.
  beforeAll(() => environmentManager.setIsServer(() => false));
  afterAll(() => environmentManager.setIsServer(() => typeof window === "undefined"));

  it("a query whose server is down recovers by itself once it is back, without a new subscriber", async () => {
    let serverUp = false;
    let calls = 0;
    const queryClient = new QueryClient({
      defaultOptions: {
        queries: {
          retry: false,
          // Shortened tenfold for the test; the policy is the one the console uses.
          refetchInterval: (query) => {
            const interval = recoveryInterval(query);
            return interval === false ? false : interval / 100;
          },
        },
      },
    });
    const observer = new QueryObserver(queryClient, {
      queryKey: ["rules"],
      queryFn: () => {
        calls += 1;
        return serverUp ? Promise.resolve(["rule"]) : Promise.reject(unreachable());
      },
    });
    const unsubscribe = observer.subscribe(() => undefined);
    await expect.poll(() => observer.getCurrentResult().status).toBe("error");
    await expect.poll(() => calls).toBeGreaterThan(1);
    serverUp = true;
    await expect.poll(() => observer.getCurrentResult().data).toEqual(["rule"]);
    const settled = calls;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls, "no polling once it answered").toBe(settled);
    unsubscribe();
  });

  it("a refusal (4xx) is not asked again", async () => {
    let calls = 0;
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const observer = new QueryObserver(queryClient, {
      queryKey: ["field"],
      queryFn: () => {
        calls += 1;
        return Promise.reject(refused());
      },
      refetchInterval: recoveryInterval,
    });
    const unsubscribe = observer.subscribe(() => undefined);
    await expect.poll(() => observer.getCurrentResult().status).toBe("error");
    expect(recoveryInterval(queryClient.getQueryCache().find({ queryKey: ["field"] })!)).toBe(
      false,
    );
    expect(calls).toBe(1);
    unsubscribe();
  });
});

/** A session store double: only its observable state and load() matter here. */
function fakeSession(answers: SessionState[]) {
  let state: SessionState = { status: "loading" };
  const listeners = new Set<() => void>();
  let loads = 0;
  const set = (next: SessionState) => {
    state = next;
    for (const listener of listeners) listener();
  };
  return {
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getState: () => state,
    load: () => {
      loads += 1;
      set(answers.shift() ?? { status: "unreachable", message: "down" });
      return Promise.resolve();
    },
    set,
    loads: () => loads,
  };
}

function manualClock() {
  const timers = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  return {
    setTimeout: (callback: () => void, ms: number) => {
      next += 1;
      timers.set(next, { callback, ms });
      return next;
    },
    clearTimeout: (handle: unknown) => timers.delete(handle as number),
    pending: () => [...timers.values()].map((timer) => timer.ms),
    fire: () => {
      const [handle, timer] = [...timers.entries()][0]!;
      timers.delete(handle);
      timer.callback();
    },
  };
}

describe("the session check while the server is unreachable", () => {
  it("is repeated with backoff until it answers, then stops", () => {
    const signedIn: SessionState = {
      status: "signedIn",
      ended: false,
      session: {} as never,
    };
    const session = fakeSession([
      { status: "unreachable", message: "down" },
      { status: "unreachable", message: "down" },
      signedIn,
    ]);
    const clock = manualClock();
    const events = new EventTarget();
    const stop = retryUnreachableSession(session, clock, events);
    expect(clock.pending()).toEqual([]);

    session.set({ status: "unreachable", message: "down" });
    expect(clock.pending()).toEqual([2000]);
    clock.fire();
    expect(session.loads()).toBe(1);
    expect(clock.pending()).toEqual([4000]);
    clock.fire();
    expect(clock.pending()).toEqual([8000]);

    // The browser says the network is back: at once, not at the end of the wait.
    events.dispatchEvent(new Event("online"));
    expect(session.loads()).toBe(3);
    expect(session.getState().status).toBe("signedIn");
    expect(clock.pending()).toEqual([]);
    stop();
  });
});
