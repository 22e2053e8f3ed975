import { Link } from "@tanstack/react-router";
import { createColumnHelper, type SortingState } from "@tanstack/react-table";
import { useMemo, useState, type ReactNode } from "react";
import { describeRule, type RuleKind, type RuleRow } from "../lib/rules";
import { DataTable, decimalSorting } from "./DataTable";
import { useCan } from "../session/permissions";
import { DeleteRuleDialog } from "./DeleteDialogs";

const column = createColumnHelper<RuleRow>();

/** Edit and Delete for users who may change rules; View for the others (the form is read-only). */
function RuleActions({ row, onDelete }: { row: RuleRow; onDelete?: (row: RuleRow) => void }) {
  const { writeRules } = useCan();
  const label = describeRule(row);
  const verb = writeRules ? "Edit" : "View";
  return (
    <span className="row-actions">
      <Link
        to={row.kind === "mapping" ? "/hashmap/mappings/$ruleId" : "/hashmap/thresholds/$ruleId"}
        params={{ ruleId: row.id }}
        className="button small"
        aria-label={`${verb} ${label}`}
      >
        {verb}
      </Link>
      {onDelete && writeRules && (
        <button
          type="button"
          className="button small danger-outline"
          onClick={() => onDelete(row)}
          aria-label={`Delete ${label}`}
        >
          Delete
        </button>
      )}
    </span>
  );
}

export function ruleColumns({
  matchHeader,
  showKind = false,
  showAttachedTo = false,
  showGroup = true,
  onDelete,
}: {
  /** "Value" for field mappings, "Level" for thresholds, none for service mappings. */
  matchHeader?: string;
  showKind?: boolean;
  showAttachedTo?: boolean;
  /** Off on a group's own page, where every rule is in that group. */
  showGroup?: boolean;
  onDelete?: (row: RuleRow) => void;
}) {
  return [
    ...(showKind
      ? [
          column.accessor("kind", {
            header: "Kind",
            size: 110,
            cell: (info) => <span className="tag">{info.getValue()}</span>,
          }),
        ]
      : []),
    ...(showAttachedTo
      ? [
          column.accessor("attachedTo", {
            header: "Attached to",
            cell: (info) => {
              const row = info.row.original;
              return row.fieldId ? (
                <Link to="/hashmap/fields/$fieldId" params={{ fieldId: row.fieldId }}>
                  {info.getValue()}
                </Link>
              ) : row.serviceId ? (
                <Link to="/hashmap/services/$serviceId" params={{ serviceId: row.serviceId }}>
                  {info.getValue()}
                </Link>
              ) : (
                info.getValue()
              );
            },
          }),
        ]
      : []),
    ...(matchHeader
      ? [
          column.accessor("match", {
            header: matchHeader,
            ...(matchHeader === "Level" && { sortingFn: decimalSorting }),
            cell: (info) => <span className="mono">{info.getValue() || "—"}</span>,
          }),
        ]
      : []),
    column.accessor("type", {
      header: "Type",
      size: 90,
      cell: (info) => <span className={`tag ${info.getValue()}`}>{info.getValue()}</span>,
    }),
    column.accessor("cost", {
      header: "Cost",
      sortingFn: decimalSorting,
      cell: (info) => <span className="mono">{info.getValue()}</span>,
    }),
    ...(showGroup
      ? [
          column.accessor("groupName", {
            header: "Group",
            cell: (info) => {
              const groupId = info.row.original.groupId;
              return groupId ? (
                <Link to="/hashmap/groups/$groupId" params={{ groupId }}>
                  {info.getValue()}
                </Link>
              ) : (
                <span className="muted">No group</span>
              );
            },
          }),
        ]
      : []),
    column.accessor("tenant", {
      header: "Tenant",
      cell: (info) =>
        info.getValue() ? (
          <span className="mono">{info.getValue()}</span>
        ) : (
          <span className="muted">All tenants</span>
        ),
    }),
    column.display({
      id: "actions",
      header: () => <span className="visually-hidden">Actions</span>,
      size: 150,
      cell: (info) => <RuleActions row={info.row.original} {...(onDelete && { onDelete })} />,
    }),
  ];
}

/** The mappings or thresholds of one service, field or group, with edit and delete. */
export function RuleTable({
  label,
  kind,
  rows,
  matchHeader,
  showAttachedTo = false,
  showGroup = true,
  empty,
}: {
  label: string;
  kind: RuleKind;
  rows: RuleRow[];
  matchHeader?: string;
  showAttachedTo?: boolean;
  showGroup?: boolean;
  empty: ReactNode;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const [deleting, setDeleting] = useState<RuleRow | null>(null);
  const columns = useMemo(
    () =>
      ruleColumns({
        ...(matchHeader && { matchHeader }),
        showAttachedTo,
        showGroup,
        onDelete: setDeleting,
      }),
    [matchHeader, showAttachedTo, showGroup],
  );
  return (
    <>
      <DataTable
        label={label}
        columns={columns}
        data={rows.filter((row) => row.kind === kind)}
        getRowId={(row) => row.id}
        sorting={sorting}
        onSortingChange={setSorting}
        empty={empty}
      />
      {deleting && (
        <DeleteRuleDialog
          kind={deleting.kind}
          ruleId={deleting.id}
          description={describeRule(deleting)}
          onClose={() => setDeleting(null)}
          onDeleted={() => setDeleting(null)}
        />
      )}
    </>
  );
}
