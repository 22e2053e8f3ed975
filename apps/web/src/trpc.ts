import { QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@ratecard/api";
import { shouldRetryQuery } from "./lib/errors";
import { sessionLink } from "./lib/session-link";
import type { SessionStore } from "./lib/session-store";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type RouterOutputs = inferRouterOutputs<AppRouter>;

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetryQuery,
        retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 2000),
        staleTime: 5_000,
      },
    },
  });
}

/** Checks the whole rule set (tenths of a second for 10,000 rules): batched, it would hold back the lists it was sent with. */
const SLOW_PROCEDURES = new Set(["hashmap.warnings"]);

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
