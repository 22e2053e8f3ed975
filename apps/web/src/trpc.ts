import { QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@ratecard/api";
import { retryDelay, shouldRetryQuery } from "./lib/errors";
import { recoveryInterval } from "./lib/recovery";
import { sessionLink } from "./lib/session-link";
import type { SessionStore } from "./lib/session-store";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type RouterOutputs = inferRouterOutputs<AppRouter>;

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A failure that may pass (server down or restarting, 5xx) is retried with backoff, then
        // again on a timer until the server answers; a 4xx never is.
        retry: shouldRetryQuery,
        retryDelay,
        refetchInterval: recoveryInterval,
        refetchOnReconnect: true,
        refetchOnWindowFocus: true,
        staleTime: 5_000,
      },
    },
  });
}

/**
 * Sent alone, never batched: batched, each would hold back the calls it was sent with. The
 * warnings check the whole rule set (tenths of a second for 10,000 rules); the target operations
 * talk to CloudKitty (an apply of 10,000 changes takes minutes).
 */
const SLOW_PROCEDURES = new Set([
  "hashmap.warnings",
  "targets.probe",
  "targets.import",
  "targets.plan",
  "targets.applyPlan",
  "targets.drift",
]);

export function createApiClient(session: SessionStore) {
  // The server serves the console, /trpc and /v1 from one origin (the dev server proxies them), so
  // the session cookie goes with every request; the CSRF token proves the page is the console's.
  const headers = (): Record<string, string> => {
    const csrfToken = session.csrfToken;
    return csrfToken ? { "x-csrf-token": csrfToken } : {};
  };
  return createTRPCClient<AppRouter>({
    links: [
      sessionLink(session),
      splitLink({
        condition: (operation) => SLOW_PROCEDURES.has(operation.path),
        true: httpLink({ url: "/trpc", headers }),
        false: httpBatchLink({ url: "/trpc", headers }),
      }),
    ],
  });
}
