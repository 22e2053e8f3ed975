import { keepPreviousData, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { RULE_WINDOW_MAX_IDS, type TRuleWindow } from "@ratecard/validators";
import { knownCollector, type CollectorMetrics } from "./lib/collector";
import { refreshAllQueries } from "./lib/refresh";
import { windowRowToRuleRow } from "./lib/rule-window";
import type { RuleLookups, RuleRow } from "./lib/rules";
import { useCan } from "./session/permissions";
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

// Module-level, so that react-query keeps the combined results while no query changes.
const combineNamedRules = (results: { data?: TRuleWindow }[]) =>
  new Map(
    results.flatMap((result) =>
      (result.data?.rows ?? []).map((row) => [row.id, windowRowToRuleRow(row)] as const),
    ),
  );

/**
 * These rules (by id) as table rows with the warnings that involve them: what a page that names a
 * few rules (the price preview) reads instead of every rule of the service. The rows read for the
 * previous ids stay until the new ones arrive.
 */
export function useNamedRules(ids: readonly string[]): ReadonlyMap<string, RuleRow> {
  const trpc = useTRPC();
  const { seeWarnings } = useCan();
  const key = ids.join(",");
  const chunks = useMemo(() => {
    const all = key ? key.split(",") : [];
    const result: string[][] = [];
    for (let start = 0; start < all.length; start += RULE_WINDOW_MAX_IDS)
      result.push(all.slice(start, start + RULE_WINDOW_MAX_IDS));
    return result;
  }, [key]);
  return useQueries({
    queries: chunks.map((chunk) => ({
      ...trpc.console.rules.queryOptions({
        ids: chunk,
        limit: chunk.length,
        warnings: seeWarnings,
      }),
      placeholderData: keepPreviousData,
    })),
    combine: combineNamedRules,
  });
}

/** How many mappings of a field the preview reads for its "Mapped values" hint. */
const HINT_MAPPINGS = 40;

const combineMappedValues = (results: { data?: TRuleWindow }[]) =>
  results.map((result) => {
    if (!result.data) return undefined;
    const values = [...new Set(result.data.rows.map((row) => windowRowToRuleRow(row).match))];
    return { values, more: result.data.total > result.data.rows.length };
  });

/**
 * A few values each field's mappings match, in order (for the preview's hints): `more` when the
 * field has more mappings than were read.
 */
export function useMappedValues(fieldIds: readonly string[]) {
  const trpc = useTRPC();
  return useQueries({
    queries: fieldIds.map((fieldId) =>
      trpc.console.rules.queryOptions({
        field_id: fieldId,
        kind: "mapping",
        sort: "match",
        limit: HINT_MAPPINGS,
      }),
    ),
    combine: combineMappedValues,
  });
}
