import { QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@ratecard/api";
import { shouldRetryQuery } from "./lib/errors";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

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

export function createApiClient() {
  // The server serves the console, /trpc and /v1 from one origin (the dev server proxies them).
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/trpc" })] });
}
