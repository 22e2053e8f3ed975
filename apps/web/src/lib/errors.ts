// Turns what the API answered into words for operators: a sentence for a toast or an alert, and
// messages keyed by form field for validation errors.

export interface ProblemDescription {
  /** The API's error code (CONFLICT, BAD_REQUEST, NOT_FOUND, ...), or NETWORK when it was not reached. */
  code: string;
  message: string;
  fieldErrors: Record<string, string>;
}

interface ErrorData {
  code?: unknown;
  httpStatus?: unknown;
  zodError?: unknown;
}

interface ZodIssueLike {
  path?: unknown;
  message?: unknown;
}

export const UNREACHABLE_MESSAGE =
  "Cannot reach the Ratecard server. Check that it is running and that the network is up, then retry.";

function errorData(error: unknown): ErrorData | undefined {
  if (typeof error !== "object" || error === null || !("data" in error)) return undefined;
  const data: unknown = error.data;
  return typeof data === "object" && data !== null ? data : undefined;
}

/** Drops the internal "(UUID: …)" that CloudKitty's messages end with; the operator knows the object. */
export function withoutUuidSuffix(message: string): string {
  return message.replace(/\s*\(UUID: [^)]*\)\s*$/, "").trim();
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

function fieldErrorsOf(zodError: unknown): Record<string, string> {
  if (!Array.isArray(zodError)) return {};
  const fieldErrors: Record<string, string> = {};
  for (const issue of zodError as ZodIssueLike[]) {
    const key: unknown = Array.isArray(issue.path) ? issue.path[0] : undefined;
    if (typeof key !== "string" || typeof issue.message !== "string") continue;
    fieldErrors[key] ??= sentence(issue.message);
  }
  return fieldErrors;
}

export function describeProblem(error: unknown): ProblemDescription {
  const data = errorData(error);
  const rawMessage = error instanceof Error ? error.message : String(error);
  const code = typeof data?.code === "string" ? data.code : undefined;
  if (!code) {
    return { code: "NETWORK", message: UNREACHABLE_MESSAGE, fieldErrors: {} };
  }
  const fieldErrors = fieldErrorsOf(data?.zodError);
  if (code === "BAD_REQUEST" && Object.keys(fieldErrors).length > 0) {
    const details = Object.entries(fieldErrors).map(([field, message]) => `${field}: ${message}`);
    return { code, message: `Please correct the form. ${details.join(" ")}`, fieldErrors };
  }
  if (code === "INTERNAL_SERVER_ERROR") {
    return {
      code,
      message:
        "The server failed to handle this request. Nothing was changed; try again, and check the server log if it persists.",
      fieldErrors,
    };
  }
  return { code, message: sentence(withoutUuidSuffix(rawMessage)), fieldErrors };
}

export function isNotFound(error: unknown): boolean {
  return errorData(error)?.code === "NOT_FOUND";
}

function isRequestFailure(error: unknown): boolean {
  return error instanceof Error && (error.name === "TRPCClientError" || error instanceof TypeError);
}

/** tRPC codes of answers that may change by themselves: the server or a proxy in front was down or overloaded. */
const TRANSIENT_CODES = new Set([
  "INTERNAL_SERVER_ERROR",
  "BAD_GATEWAY",
  "SERVICE_UNAVAILABLE",
  "GATEWAY_TIMEOUT",
]);

/**
 * Whether asking again may succeed: the server was not reached (down, restarting, a proxy's HTML
 * page instead of an answer) or answered 5xx. A 4xx is the request's own fault and stays so.
 */
export function isTransientProblem(error: unknown): boolean {
  const data = errorData(error);
  const code = typeof data?.code === "string" ? data.code : undefined;
  // Without an answer from the API: a request that did not get through is worth repeating, a bug
  // in the page (an Error thrown while rendering) is not.
  if (code === undefined) return isRequestFailure(error);
  const status = typeof data?.httpStatus === "number" ? data.httpStatus : undefined;
  if (status !== undefined) return status >= 500 && status !== 501;
  return TRANSIENT_CODES.has(code);
}

/** Retries a few times with backoff what may succeed the second time; later, see lib/recovery.ts. */
export function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  return failureCount < 3 && isTransientProblem(error);
}

/** 1 s, 2 s, 4 s: a server restart usually fits in these. */
export function retryDelay(attempt: number): number {
  return Math.min(1000 * 2 ** attempt, 8000);
}

/** The API refuses a group delete whose rules, moved to no group, would duplicate others. */
const GROUP_KEEP_RULES_CONFLICT = /cannot be deleted without its rules/;

/**
 * A failed group delete in the dialog's words: the API's own message names a UUID and
 * `recursive=true`, which the operator never sees; the dialog's choice is "Delete the rules too".
 */
export function describeGroupDeletionProblem(error: unknown, groupName: string): string {
  const problem = describeProblem(error);
  if (problem.code === "CONFLICT" && GROUP_KEEP_RULES_CONFLICT.test(problem.message)) {
    return (
      `The rules of “${groupName}” cannot be kept: moved to no group, some would be identical to ` +
      `rules already there. Choose “Delete the rules too”, or first delete or move those rules ` +
      `to another group.`
    );
  }
  return problem.message;
}
