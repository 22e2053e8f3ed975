import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import {
  describeProblem,
  isNotFound,
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
  it("retries an unreachable server but not a missing object", () => {
    expect(shouldRetryQuery(0, TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(true);
    expect(shouldRetryQuery(2, TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(false);
    const missing = apiError("No such field: x", { code: "NOT_FOUND" });
    expect(shouldRetryQuery(0, missing)).toBe(false);
    expect(isNotFound(missing)).toBe(true);
  });
});
