import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import {
  describeGroupDeletionProblem,
  describeProblem,
  isNotFound,
  isTransientProblem,
  retryDelay,
  shouldRetryQuery,
  UNREACHABLE_MESSAGE,
  withoutUuidSuffix,
} from "./errors";

function apiError(message: string, data: Record<string, unknown>) {
  return new TRPCClientError(message, { result: { error: { message, code: -32600, data } } });
}

describe("describeProblem", () => {
  it("states a duplicate in plain words, without the internal id", () => {
    const problem = describeProblem(
      apiError("Service volume.size already exists (UUID: 6a0c7e0e-6f0e-4c56-9d1f-2a4f5a0b8e3b)", {
        code: "CONFLICT",
        httpStatus: 409,
      }),
    );
    expect(problem).toEqual({
      code: "CONFLICT",
      message: "Service volume.size already exists.",
      fieldErrors: {},
    });
  });

  it("puts validation messages on the fields they concern", () => {
    const problem = describeProblem(
      apiError("Input validation failed", {
        code: "BAD_REQUEST",
        zodError: [
          { path: ["cost"], message: "More than 28 fractional digits cannot be stored exactly." },
          { path: ["cost"], message: "second message on the same field is dropped" },
          { path: ["name"], message: "must not be empty" },
        ],
      }),
    );
    expect(problem.fieldErrors).toEqual({
      cost: "More than 28 fractional digits cannot be stored exactly.",
      name: "Must not be empty.",
    });
    expect(problem.message).toContain("cost: More than 28 fractional digits");
  });

  it("says when the server cannot be reached", () => {
    const problem = describeProblem(TRPCClientError.from(new TypeError("Failed to fetch")));
    expect(problem).toEqual({ code: "NETWORK", message: UNREACHABLE_MESSAGE, fieldErrors: {} });
  });

  it("does not pass on internal errors' text", () => {
    const problem = describeProblem(
      apiError("SQLITE_BUSY: database is locked", { code: "INTERNAL_SERVER_ERROR" }),
    );
    expect(problem.message).not.toContain("SQLITE");
  });

  it("keeps domain messages as sentences", () => {
    expect(
      describeProblem(apiError("You must specify one parent.", { code: "BAD_REQUEST" })).message,
    ).toBe("You must specify one parent.");
    expect(withoutUuidSuffix("No such group: None (UUID: x)")).toBe("No such group: None");
  });
});

describe("query retries", () => {
  it("retries an unreachable server three times, with backoff, but not a missing object", () => {
    expect(shouldRetryQuery(0, TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(true);
    expect(shouldRetryQuery(2, TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(true);
    expect(shouldRetryQuery(3, TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(false);
    expect([0, 1, 2, 3, 4].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 8000]);
    const missing = apiError("No such field: x", { code: "NOT_FOUND" });
    expect(shouldRetryQuery(0, missing)).toBe(false);
    expect(isNotFound(missing)).toBe(true);
  });
});

describe("which failures may pass by themselves", () => {
  it("counts the server unreachable, 5xx and a proxy's 502/503/504, never a 4xx", () => {
    expect(isTransientProblem(TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(true);
    expect(
      isTransientProblem(apiError("down", { code: "SERVICE_UNAVAILABLE", httpStatus: 503 })),
    ).toBe(true);
    expect(isTransientProblem(apiError("x", { code: "INTERNAL_SERVER_ERROR" }))).toBe(true);
    expect(isTransientProblem(apiError("x", { code: "GATEWAY_TIMEOUT" }))).toBe(true);
    for (const [code, httpStatus] of [
      ["BAD_REQUEST", 400],
      ["UNAUTHORIZED", 401],
      ["FORBIDDEN", 403],
      ["NOT_FOUND", 404],
      ["CONFLICT", 409],
      ["TOO_MANY_REQUESTS", 429],
      ["NOT_IMPLEMENTED", 501],
    ] as const) {
      expect(isTransientProblem(apiError("x", { code, httpStatus })), code).toBe(false);
      expect(shouldRetryQuery(0, apiError("x", { code, httpStatus })), code).toBe(false);
    }
  });

  it("does not count a bug in the page as an outage", () => {
    expect(isTransientProblem(new Error("Cannot read properties of undefined"))).toBe(false);
  });
});

describe("a group delete refused in the dialog's words", () => {
  const refusal = apiError(
    "Group 0b0c0e5e-7d1b-4c5e-8a6e-0f2b1e6f5a11 cannot be deleted without its rules: moved to no " +
      "group, some would be identical to rules that are already there. Delete it with " +
      "recursive=true, or delete or move those rules first.",
    { code: "CONFLICT", httpStatus: 409 },
  );

  it("points to the dialog's own choice, without the UUID or the API parameter", () => {
    const message = describeGroupDeletionProblem(refusal, "gold");
    expect(message).toContain("“Delete the rules too”");
    expect(message).toContain("“gold”");
    expect(message).not.toMatch(/recursive|0b0c0e5e/);
  });

  it("passes other failures on as usual", () => {
    const missing = apiError("No such group: x", { code: "NOT_FOUND", httpStatus: 404 });
    expect(describeGroupDeletionProblem(missing, "gold")).toBe("No such group: x.");
  });
});
