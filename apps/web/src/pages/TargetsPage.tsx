import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { createColumnHelper, type SortingState } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { DataTable } from "../components/DataTable";
import { EmptyState } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { TargetDialog, type Target } from "../components/TargetDialog";
import { ApplyingNow, DeleteTargetDialog, ModeTag, ProbeCell } from "../components/TargetParts";
import { DriftBadge, LastApply } from "../components/TargetRuns";
import { useRefreshAll } from "../hooks";
import { describeProblem } from "../lib/errors";
import { formatSort, parseSort } from "../lib/rules";
import {
  APPLY_PROGRESS_REFRESH_MS,
  applyProgressRefresh,
  describeConnection,
  describeProbe,
} from "../lib/targets";
import { ReadOnlyNotice, useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import "../components/targets.css";

const route = getRouteApi("/targets");
const column = createColumnHelper<Target>();

/** The CloudKitty deployments Ratecard imports from and applies to (ratecard:manage_targets). */
export function TargetsPage() {
  const { manageTargets } = useCan();
  if (!manageTargets)
    return (
      <section>
        <h1>CloudKitty targets</h1>
        <ReadOnlyNotice permission="manageTargets" />
      </section>
    );
  return <TargetList />;
}

function TargetList() {
  const trpc = useTRPC();
  const targets = useQuery({
    ...trpc.targets.list.queryOptions(),
    // While an apply is under way, until its end shows.
    refetchInterval: (query) =>
      query.state.data?.targets.some((target) => applyProgressRefresh(target))
        ? APPLY_PROGRESS_REFRESH_MS
        : false,
  });
  const search = route.useSearch();
  const navigate = useNavigate({ from: "/targets" });
  const sorting = parseSort(search.sort);
  const setSorting = (next: SortingState) =>
    void navigate({ search: (prev) => ({ ...prev, sort: formatSort(next) }), replace: true });
  const [editing, setEditing] = useState<Target | "new" | null>(null);
  const [deleting, setDeleting] = useState<Target | null>(null);

  const columns = useMemo(
    () => [
      column.accessor("name", {
        header: "Name",
        cell: (info) => (
          <Link to="/targets/$targetId" params={{ targetId: info.row.original.target_id }}>
            {info.getValue()}
          </Link>
        ),
      }),
      column.accessor("mode", {
        header: "Mode",
        cell: (info) => <ModeTag mode={info.getValue()} prune={info.row.original.prune} />,
      }),
      column.accessor((target) => describeConnection(target.connection), {
        id: "connection",
        header: "Connection",
        cell: (info) => <span className="target-connection">{info.getValue()}</span>,
      }),
      column.accessor((target) => target.last_probe?.generation ?? "", {
        id: "probe",
        header: "Last probe",
        cell: (info) => <ProbeCell probe={info.row.original.last_probe} />,
      }),
      column.display({
        id: "lastApply",
        header: "Last apply",
        cell: (info) => (
          <span className="target-probe">
            <ApplyingNow apply={info.row.original.apply_in_progress} />
            <LastApply targetId={info.row.original.target_id} />
          </span>
        ),
      }),
      column.display({
        id: "drift",
        header: "Drift",
        cell: (info) => <DriftBadge targetId={info.row.original.target_id} />,
      }),
      column.display({
        id: "actions",
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (info) => (
          <RowActions
            target={info.row.original}
            onEdit={setEditing}
            onDelete={(target) => setDeleting(target)}
          />
        ),
      }),
    ],
    [],
  );

  const register = (label: string) => (
    <button type="button" className="button primary" onClick={() => setEditing("new")}>
      {label}
    </button>
  );

  return (
    <section>
      <header className="page-header">
        <div>
          <p className="eyebrow">CloudKitty bridge</p>
          <h1>CloudKitty targets</h1>
          <p className="lead">
            The CloudKitty deployments whose rating rules Ratecard imports, plans against and
            applies to, through CloudKitty's own v1 API.
          </p>
        </div>
        {register("Register target")}
      </header>
      <div className="panel">
        <QueryState query={targets}>
          {(data) => (
            <DataTable
              label="CloudKitty targets"
              columns={columns}
              data={data.targets}
              getRowId={(target) => target.target_id}
              sorting={sorting}
              onSortingChange={setSorting}
              empty={
                <EmptyState
                  title="No CloudKitty target yet"
                  action={register("Register the first target")}
                >
                  Register a CloudKitty deployment to import its rules into Ratecard, or to apply
                  Ratecard's rules to it.
                </EmptyState>
              }
            />
          )}
        </QueryState>
      </div>
      {editing && (
        <TargetDialog
          target={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) =>
            editing === "new" &&
            void navigate({ to: "/targets/$targetId", params: { targetId: saved.target_id } })
          }
        />
      )}
      {deleting && <DeleteTargetDialog target={deleting} onClose={() => setDeleting(null)} />}
    </section>
  );
}

function RowActions({
  target,
  onEdit,
  onDelete,
}: {
  target: Target;
  onEdit: (target: Target) => void;
  onDelete: (target: Target) => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const probe = useMutation(trpc.targets.probe.mutationOptions());
  return (
    <span className="row-actions">
      <button
        type="button"
        className="button small"
        disabled={probe.isPending}
        aria-label={`Probe target ${target.name}`}
        onClick={() =>
          void probe.mutateAsync({ target_id: target.target_id }).then(
            async (report) => {
              const text = describeProbe(report);
              if (report.reachable && report.auth !== "refused")
                toast.success(`${target.name}: ${text}`);
              else toast.error(`${target.name}: ${text}`);
              await refreshAll();
            },
            (error: unknown) => toast.error(describeProblem(error).message),
          )
        }
      >
        {probe.isPending ? "Probing…" : "Probe"}
      </button>
      <button
        type="button"
        className="button small"
        aria-label={`Edit target ${target.name}`}
        onClick={() => onEdit(target)}
      >
        Edit
      </button>
      <button
        type="button"
        className="button small danger-outline"
        aria-label={`Delete target ${target.name}`}
        onClick={() => onDelete(target)}
      >
        Delete
      </button>
    </span>
  );
}
