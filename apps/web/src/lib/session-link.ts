import type { TRPCLink } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { observable, type Unsubscribable } from "@trpc/server/observable";

export interface SessionGate {
  readonly generation: number;
  sessionEnded(generation: number): Promise<boolean>;
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  if ("data" in error && typeof error.data === "object" && error.data !== null) {
    const data = error.data as { code?: unknown; httpStatus?: unknown };
    if (data.code === "UNAUTHORIZED") return 401;
    if (typeof data.httpStatus === "number") return data.httpStatus;
  }
  // The HTTP edge may refuse before tRPC runs, with a body that is not tRPC's.
  if ("meta" in error && typeof error.meta === "object" && error.meta !== null) {
    const response = (error.meta as { response?: unknown }).response;
    if (response instanceof Response) return response.status;
  }
  return undefined;
}

/** The server no longer accepts the session (expired, revoked, signed out elsewhere). */
export function isUnauthorized(error: unknown): boolean {
  return httpStatusOf(error) === 401;
}

/**
 * Holds a request the server refused as unauthenticated until the user has signed in again, then
 * sends it again: a save made after the session ended completes once the user is back, and the
 * page never loses what was typed. Sending again is safe: a 401 comes before anything is changed.
 */
export function sessionLink<TRouter extends AnyRouter>(gate: SessionGate): TRPCLink<TRouter> {
  return () =>
    ({ op, next }) =>
      observable((observer) => {
        let current: Unsubscribable | undefined;
        let disposed = false;
        const attempt = () => {
          const generation = gate.generation;
          current = next(op).subscribe({
            next: (value) => observer.next(value),
            complete: () => observer.complete(),
            error: (error) => {
              if (!isUnauthorized(error)) {
                observer.error(error);
                return;
              }
              void gate.sessionEnded(generation).then((retry) => {
                if (disposed) return;
                if (retry) attempt();
                else observer.error(error);
              });
            },
          });
        };
        attempt();
        return () => {
          disposed = true;
          current?.unsubscribe();
        };
      });
}
