import type { QueryClient } from "@tanstack/react-query";

/**
 * After a change, every list and count shown anywhere may be stale: refetch what is on screen.
 * A first load still in flight may have been answered before the change, and invalidating alone
 * would keep that answer (react-query joins a fetch that has no data yet instead of restarting it),
 * so in-flight loads are cancelled first and fetched again.
 */
export async function refreshAllQueries(queryClient: QueryClient): Promise<void> {
  await queryClient.cancelQueries();
  await queryClient.invalidateQueries();
}
