import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Fragment, useMemo, type ReactNode } from "react";
import {
  describeObject,
  describeUser,
  diffObjects,
  formatWhen,
  isForbidden,
  mergeStreams,
  summarizeCascade,
  type HistoryEvent,
} from "../lib/history";
import { useTRPCClient } from "../trpc";
import { ErrorPanel, LoadingRows } from "./QueryState";
import "./history.css";

/** A record whose trail is shown: its type and id as the audit trail names them. */
export interface HistorySubject {
  resource_type: "service" | "field" | "group" | "mapping" | "threshold" | "script" | "module";
  resource_id: string;
}

const PAGE = 25;
/** One request per record: a record with more rules than this shows only its own trail and the first ones'. */
export const MAX_HISTORY_SUBJECTS = 40;

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

type Cursors = Record<string, string | null>;
type Page = Record<string, { events: HistoryEvent[]; next: string | null }>;

const keyOf = (subject: HistorySubject) => `${subject.resource_type}:${subject.resource_id}`;

/**
 * A record's history, newest first: its own events and those of the records beneath it
 * (`subjects`), merged; "Load more" asks every trail with older events for its next page.
 */
export function History({ label, subjects }: { label: string; subjects: HistorySubject[] }) {
  const client = useTRPCClient();
  const shown = subjects.slice(0, MAX_HISTORY_SUBJECTS);
  const firstPage: Cursors = {};
  const query = useInfiniteQuery({
    queryKey: ["history", shown.map(keyOf)],
    initialPageParam: firstPage,
    queryFn: async ({ pageParam }): Promise<Page> => {
      const pending = shown.filter((subject) => pageParam[keyOf(subject)] !== null);
      const answers = await Promise.all(
        pending.map((subject) =>
          client.audit.list.query({
            ...subject,
            limit: PAGE,
            cursor: pageParam[keyOf(subject)] ?? undefined,
          }),
        ),
      );
      return Object.fromEntries(pending.map((subject, index) => [keyOf(subject), answers[index]!]));
    },
    getNextPageParam: (last, pages): Cursors | undefined => {
      const cursors: Cursors = {};
      for (const subject of shown) {
        const key = keyOf(subject);
        const page = [...pages].reverse().find((candidate) => key in candidate);
        cursors[key] = page?.[key]?.next ?? null;
      }
      void last;
      return Object.values(cursors).some((cursor) => cursor !== null) ? cursors : undefined;
    },
  });
  const merged = useMemo(() => {
    const pages = query.data?.pages ?? [];
    return mergeStreams(
      shown.map((subject) => {
        const key = keyOf(subject);
        const mine = pages.filter((page) => key in page);
        return {
          events: mine.flatMap((page) => page[key]!.events),
          more: (mine.at(-1)?.[key]?.next ?? null) !== null,
        };
      }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query.data]);

  if (query.isPending) return <LoadingRows label="Loading the history…" />;
  if (query.isError) {
    if (isForbidden(query.error)) return <AdminsOnlyNotice what="the history of changes" />;
    return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  }
  return (
    <>
      {subjects.length > shown.length && (
        <p className="muted">
          The history shows this record and the first {MAX_HISTORY_SUBJECTS - 1} records beneath it;
          open a rule to see its own history.
        </p>
      )}
      {merged.events.length === 0 ? (
        <p className="muted">No recorded changes.</p>
      ) : (
        <EventTable
          label={label}
          events={merged.events}
          recordColumn={subjects.length > 1}
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
