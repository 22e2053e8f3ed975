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

/** Retry only what may succeed the second time: the server being unreachable or failing. */
export function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  const code = errorData(error)?.code;
  return failureCount < 2 && (code === undefined || code === "INTERNAL_SERVER_ERROR");
}
