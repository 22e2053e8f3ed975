import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import type { RuleLookups } from "./lib/rules";
import { useTRPC } from "./trpc";

/** After a change, every list and count shown anywhere may be stale: refetch what is on screen. */
export function useRefreshAll(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries(), [queryClient]);
}

/** Services, fields and groups by id, to show names instead of UUIDs. */
export function useLookups() {
  const trpc = useTRPC();
  const services = useQuery(trpc.hashmap.services.list.queryOptions());
  const fields = useQuery(trpc.console.allFields.queryOptions());
  const groups = useQuery(trpc.hashmap.groups.list.queryOptions());
  const queries = [services, fields, groups];
  const lookups = useMemo<RuleLookups>(
    () => ({
      services: services.data?.services ?? [],
      fields: fields.data?.fields ?? [],
      groups: groups.data?.groups ?? [],
    }),
    [services.data, fields.data, groups.data],
  );
  return {
    lookups,
    isPending: queries.some((query) => query.isPending),
    error: queries.find((query) => query.isError)?.error,
    refetch: () => queries.forEach((query) => void query.refetch()),
  };
}
