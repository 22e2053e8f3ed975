import { useInfiniteQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { useId, type ReactNode } from "react";
import { DebouncedInput } from "../components/DebouncedInput";
import { AdminsOnlyNotice, EventTable } from "../components/History";
import { ErrorPanel, LoadingRows } from "../components/QueryState";
import {
  ACTIVITY_OPERATIONS,
  ACTIVITY_RESOURCE_TYPES,
  activityFilters,
  type ActivitySearch,
} from "../lib/activity";
import { isForbidden as isForbiddenError, type HistoryEvent } from "../lib/history";
import { useTRPCClient } from "../trpc";

const route = getRouteApi("/activity");

function Filter({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

/** Every change to every resource, newest first, filtered from the address. */
export function ActivityPage() {
  const navigate = useNavigate();
  const search = route.useSearch();
  const update = (patch: Partial<ActivitySearch>) =>
    void navigate({
      to: "/activity",
      search: (previous) => ({ ...previous, ...patch }),
      replace: true,
    });
  const client = useTRPCClient();
  const filters = activityFilters(search);
  // Not the tRPC helper's infinite query: it adds a `direction` the strict filters refuse.
  const query = useInfiniteQuery({
    queryKey: ["activity", filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      client.audit.list.query({ ...filters, limit: 50, cursor: pageParam }),
    getNextPageParam: (last) => last.next ?? undefined,
  });
  const events = (query.data?.pages.flatMap((page) => page.events) ?? []) as HistoryEvent[];

  return (
    <section>
      <header className="page-header">
        <div>
          <p className="eyebrow">Audit trail</p>
          <h1>Activity</h1>
          <p className="muted">Every change to the rating configuration, newest first.</p>
        </div>
      </header>
      <div className="panel">
        <form
          className="filters"
          role="search"
          aria-label="Filter activity"
          onSubmit={(event) => event.preventDefault()}
        >
          <Filter label="Resource type">
            {(id) => (
              <select
                id={id}
                className="input"
                value={search.resource ?? ""}
                onChange={(event) =>
                  update({
                    resource: (event.target.value || undefined) as ActivitySearch["resource"],
                  })
                }
              >
                <option value="">All</option>
                {ACTIVITY_RESOURCE_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
            )}
          </Filter>
          <Filter label="Operation">
            {(id) => (
              <select
                id={id}
                className="input"
                value={search.operation ?? ""}
                onChange={(event) =>
                  update({
                    operation: (event.target.value || undefined) as ActivitySearch["operation"],
                  })
                }
              >
                <option value="">All</option>
                {ACTIVITY_OPERATIONS.map((operation) => (
                  <option key={operation} value={operation}>
                    {operation}
                  </option>
                ))}
              </select>
            )}
          </Filter>
          <Filter label="User ID">
            {(id) => (
              <DebouncedInput
                id={id}
                className="input"
                value={search.user ?? ""}
                onCommit={(value) => update({ user: value.trim() || undefined })}
              />
            )}
          </Filter>
          <Filter label="From (day)">
            {(id) => (
              <input
                id={id}
                type="date"
                className="input"
                value={search.from ?? ""}
                onChange={(event) => update({ from: event.target.value || undefined })}
              />
            )}
          </Filter>
          <Filter label="To (day, included)">
            {(id) => (
              <input
                id={id}
                type="date"
                className="input"
                value={search.to ?? ""}
                onChange={(event) => update({ to: event.target.value || undefined })}
              />
            )}
          </Filter>
        </form>
        {query.isPending ? (
          <LoadingRows label="Loading the activity…" />
        ) : query.isError ? (
          isForbiddenError(query.error) ? (
            <AdminsOnlyNotice what="the activity" />
          ) : (
            <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />
          )
        ) : events.length === 0 ? (
          <p className="muted">No recorded changes match.</p>
        ) : (
          <EventTable
            label="Activity"
            events={events}
            recordColumn
            footer={
              query.hasNextPage && (
                <button
                  type="button"
                  className="button"
                  disabled={query.isFetchingNextPage}
                  onClick={() => void query.fetchNextPage()}
                >
                  {query.isFetchingNextPage ? "Loading…" : "Load more"}
                </button>
              )
            }
          />
        )}
      </div>
    </section>
  );
}
