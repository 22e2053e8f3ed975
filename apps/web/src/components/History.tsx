import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Fragment, useMemo, type ReactNode } from "react";
import {
  describeObject,
  describeUser,
  diffObjects,
  formatWhen,
  isForbidden,
  summarizeCascade,
  type HistoryEvent,
} from "../lib/history";
import { useTRPCClient } from "../trpc";
import { ErrorPanel, LoadingRows } from "./QueryState";
import "./history.css";

const PAGE = 25;

/** Only administrators may read the trail (ratecard:read_audit): say so instead of an error. */
export function AdminsOnlyNotice({ what }: { what: string }) {
  return (
    <p className="alert note" role="note">
      <strong>Not allowed.</strong> Only administrators can see {what}.
    </p>
  );
}

/** The record an event is about, linked while it may still exist. */
export function RecordLink({ event, deleted }: { event: HistoryEvent; deleted: boolean }) {
  const object = event.after ?? event.before ?? {};
  const shown = object.name ?? object.value ?? object.level;
  const name = typeof shown === "string" ? shown : event.resource_id;
  const label = `${event.resource_type} ${name}`;
  if (deleted) return <>{label}</>;
  const id = event.resource_id;
  switch (event.resource_type) {
    case "service":
      return (
        <Link to="/hashmap/services/$serviceId" params={{ serviceId: id }}>
          {label}
        </Link>
      );
    case "field":
      return (
        <Link to="/hashmap/fields/$fieldId" params={{ fieldId: id }}>
          {label}
        </Link>
      );
    case "group":
      return (
        <Link to="/hashmap/groups/$groupId" params={{ groupId: id }}>
          {label}
        </Link>
      );
    case "mapping":
      return (
        <Link to="/hashmap/mappings/$ruleId" params={{ ruleId: id }}>
          {label}
        </Link>
      );
    case "threshold":
      return (
        <Link to="/hashmap/thresholds/$ruleId" params={{ ruleId: id }}>
          {label}
        </Link>
      );
    case "script":
      return (
        <Link to="/pyscripts/$scriptId" params={{ scriptId: id }}>
          {label}
        </Link>
      );
    case "module":
      return <Link to="/modules">{label}</Link>;
    default:
      return <>{label}</>;
  }
}

function ObjectList({ object }: { object: Record<string, unknown> | null }) {
  return (
    <dl className="history-object">
      {describeObject(object).map(([key, value]) => (
        <Fragment key={key}>
          <dt>{key}</dt>
          <dd>{value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** What an event did: the changed keys of an update, the object of a create or delete. */
export function EventChange({ event }: { event: HistoryEvent }) {
  const cascade = summarizeCascade(event.cascade);
  if (event.operation === "update") {
    const changes = diffObjects(event.before, event.after);
    return (
      <>
        {changes.length === 0 ? (
          <p className="muted">No visible change.</p>
        ) : (
          <ul className="history-diff">
            {changes.map((change) => (
              <li key={change.key}>
                <code>{change.key}</code> {change.from} → {change.to}
              </li>
            ))}
          </ul>
        )}
        {cascade && <p>{cascade}</p>}
      </>
    );
  }
  return (
    <>
      <details>
        <summary>{event.operation === "create" ? "Created with" : "Was"}</summary>
        <ObjectList object={event.operation === "create" ? event.after : event.before} />
      </details>
      {cascade && <p className="history-cascade">{cascade}</p>}
    </>
  );
}

/** Events as a table, newest first; `recordColumn` adds which record each is about. */
export function EventTable({
  label,
  events,
  recordColumn,
  footer,
}: {
  label: string;
  events: HistoryEvent[];
  recordColumn: boolean;
  footer?: ReactNode;
}) {
  const deletedIds = useMemo(
    () =>
      new Set(
        events.filter((event) => event.operation === "delete").map((event) => event.resource_id),
      ),
    [events],
  );
  return (
    <>
      <div className="table-scroll history">
        <table className="data-table history-table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Operation</th>
              {recordColumn && <th scope="col">Record</th>}
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.event_id}>
                <td>
                  <time dateTime={event.at} title={`${event.at} (UTC)`}>
                    {formatWhen(event.at)}
                  </time>
                </td>
                <td>{describeUser(event)}</td>
                <td>
                  {event.operation} {recordColumn ? "" : event.resource_type}
                </td>
                {recordColumn && (
                  <td>
                    <RecordLink event={event} deleted={deletedIds.has(event.resource_id)} />
                  </td>
                )}
                <td>
                  <EventChange event={event} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {footer}
    </>
  );
}

/** A record whose history is shown, as the audit trail names it. */
export interface HistoryRecord {
  resource_type: "service" | "field" | "group" | "mapping" | "threshold" | "script" | "module";
  resource_id: string;
}

/** Records whose history holds the records beneath them (a service's fields, a group's rules...). */
const PARENTS = new Set(["service", "field", "group"]);

/**
 * A record's history, newest first, a page at a time: a service's, field's or group's holds the
 * events of the records beneath it too, as one list the server pages (audit.ofRecord), however
 * many rules it holds; any other record's is its own trail.
 */
export function History({ label, record }: { label: string; record: HistoryRecord }) {
  const client = useTRPCClient();
  const parent = PARENTS.has(record.resource_type);
  const query = useInfiniteQuery({
    queryKey: ["history", record.resource_type, record.resource_id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam: cursor }) => {
      const page = { resource_id: record.resource_id, limit: PAGE, cursor };
      const { resource_type: type } = record;
      return type === "service" || type === "field" || type === "group"
        ? client.audit.ofRecord.query({ ...page, resource_type: type })
        : client.audit.list.query({ ...page, resource_type: type });
    },
    getNextPageParam: (last) => last.next ?? undefined,
  });
  const events = useMemo(
    () => query.data?.pages.flatMap((page) => page.events) ?? [],
    [query.data],
  );

  if (query.isPending) return <LoadingRows label="Loading the history…" />;
  if (query.isError) {
    if (isForbidden(query.error)) return <AdminsOnlyNotice what="the history of changes" />;
    return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  }
  return (
    <>
      {events.length === 0 ? (
        <p className="muted">No recorded changes.</p>
      ) : (
        <EventTable
          label={label}
          events={events}
          recordColumn={parent}
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
    </>
  );
}
