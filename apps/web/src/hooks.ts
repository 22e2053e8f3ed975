import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { TMapping, TThreshold } from "@ratecard/validators";
import { knownCollector, type CollectorMetrics } from "./lib/collector";
import { refreshAllQueries } from "./lib/refresh";
import { buildRuleRows, type RuleLookups } from "./lib/rules";
import { useTRPC } from "./trpc";

/** After a change, every list and count shown anywhere may be stale: refetch what is on screen. */
export function useRefreshAll(): () => Promise<void> {
  const queryClient = useQueryClient();
  return useCallback(() => refreshAllQueries(queryClient), [queryClient]);
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

/**
 * The collector's metrics (the server's METRICS_FILE), or null when there is no file or the server
 * refuses to tell (policy): suggestions and collector warnings then quietly disappear.
 */
export function useCollector(): CollectorMetrics | null {
  const trpc = useTRPC();
  // The file is read once when the server starts.
  const answer = useQuery(
    trpc.info.collectorMetrics.queryOptions(undefined, { staleTime: Number.POSITIVE_INFINITY }),
  );
  return knownCollector(answer.data);
}

/** The value once it has stopped changing for `delayMs`, so typing does not send a request per keystroke. */
export function useDebouncedValue<T>(value: T, delayMs = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

// Module-level, so that react-query keeps the combined arrays while no query changes.
const allMappings = (results: { data?: { mappings: TMapping[] } }[]) =>
  results.flatMap((result) => result.data?.mappings ?? []);
const allThresholds = (results: { data?: { thresholds: TThreshold[] } }[]) =>
  results.flatMap((result) => result.data?.thresholds ?? []);

/**
 * Every mapping and threshold of one service, its fields' included, as table rows: what a price or a
 * warning about that service can name. One batched request, whatever the number of fields.
 */
export function useServiceRuleRows(serviceId: string | undefined, lookups: RuleLookups) {
  const trpc = useTRPC();
  const parents = useMemo(
    () =>
      serviceId
        ? [
            { service_id: serviceId },
            ...lookups.fields
              .filter((field) => field.service_id === serviceId)
              .map((field) => ({ field_id: field.field_id })),
          ]
        : [],
    [serviceId, lookups.fields],
  );
  const mappings = useQueries({
    queries: parents.map((parent) => trpc.hashmap.mappings.list.queryOptions(parent)),
    combine: allMappings,
  });
  const thresholds = useQueries({
    queries: parents.map((parent) => trpc.hashmap.thresholds.list.queryOptions(parent)),
    combine: allThresholds,
  });
  return useMemo(
    () => buildRuleRows(mappings, thresholds, lookups),
    [mappings, thresholds, lookups],
  );
}
