import { TRPCClientError, type OperationLink, type TRPCLink } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { observable, observableToPromise } from "@trpc/server/observable";
import { describe, expect, it } from "vitest";
import { isUnauthorized, sessionLink, type SessionGate } from "./session-link";

function apiError(code: string, httpStatus: number) {
  return new TRPCClientError(code, {
    result: { error: { message: code, code: -32001, data: { code, httpStatus } } },
  });
}

/** The link chain's end: answers each attempt with the next scripted outcome. */
function scriptedTransport(outcomes: (Error | string)[]) {
  let attempts = 0;
  const next = (() =>
    observable((observer) => {
      const outcome = outcomes[attempts++];
      if (outcome instanceof Error) observer.error(outcome);
      else {
        observer.next({ result: { type: "data", data: outcome } });
        observer.complete();
      }
    })) as unknown as Parameters<OperationLink<AnyRouter>>[0]["next"];
  return { next, attempts: () => attempts };
}

function run(link: TRPCLink<AnyRouter>, next: ReturnType<typeof scriptedTransport>["next"]) {
  const operation = link({});
  const op = {
    id: 1,
    type: "mutation",
    path: "hashmap.services.create",
    input: {},
    context: {},
    signal: null,
  } as const;
  return observableToPromise(operation({ op, next }));
}

class Gate implements SessionGate {
  generation = 1;
  ended = 0;
  answer: boolean;
  constructor(answer: boolean) {
    this.answer = answer;
  }
  sessionEnded() {
    this.ended += 1;
    return Promise.resolve(this.answer);
  }
}

describe("sessionLink", () => {
  it("sends a refused request again once the user has signed in", async () => {
    const gate = new Gate(true);
    const transport = scriptedTransport([apiError("UNAUTHORIZED", 401), "created"]);
    const result = await run(sessionLink(gate), transport.next);
    expect(result).toEqual({ result: { type: "data", data: "created" } });
    expect(transport.attempts()).toBe(2);
    expect(gate.ended).toBe(1);
  });

  it("fails with the refusal when the user signs out instead", async () => {
    const gate = new Gate(false);
    const transport = scriptedTransport([apiError("UNAUTHORIZED", 401)]);
    await expect(run(sessionLink(gate), transport.next)).rejects.toThrow("UNAUTHORIZED");
    expect(transport.attempts()).toBe(1);
  });

  it("passes every other error on at once", async () => {
    const gate = new Gate(true);
    const transport = scriptedTransport([apiError("FORBIDDEN", 403)]);
    await expect(run(sessionLink(gate), transport.next)).rejects.toThrow("FORBIDDEN");
    expect(gate.ended).toBe(0);
  });
});

describe("isUnauthorized", () => {
  it("recognises tRPC's code and a bare 401 from the HTTP edge", () => {
    expect(isUnauthorized(apiError("UNAUTHORIZED", 401))).toBe(true);
    expect(isUnauthorized(apiError("FORBIDDEN", 403))).toBe(false);
    const edge = new TRPCClientError("Unauthorized", {
      meta: { response: new Response("{}", { status: 401 }) },
    });
    expect(isUnauthorized(edge)).toBe(true);
    expect(isUnauthorized(new Error("network"))).toBe(false);
  });
});
