import { Link } from "@tanstack/react-router";
import { createColumnHelper } from "@tanstack/react-table";
import type { ReactNode } from "react";
import { formatRulePanel, type RulePanelTarget } from "../lib/rule-list";
import type { RuleParent } from "../lib/rule-form";
import { describeRule, type RuleRow } from "../lib/rules";
import { decimalSorting } from "./DataTable";
import { useCan } from "../session/permissions";

const column = createColumnHelper<RuleRow>();

/** What a new rule opened from a list is attached to, preselected in the form. */
export interface NewRuleContext {
  parent?: RuleParent | undefined;
  groupId?: string | undefined;
}

/**
 * A link that opens a rule in the side panel over the current list. The address bar shows the
 * rule's own page (/hashmap/mappings/<id>), which is what a copied link or a new tab opens (a
 * reload keeps the panel over the list); the list stays mounted under the panel with its scroll,
 * filters and sort.
 */
export function RulePanelLink({
  target,
  context = {},
  className,
  children,
  ...aria
}: {
  target: RulePanelTarget;
  context?: NewRuleContext;
  className?: string;
  children: ReactNode;
  "aria-label"?: string;
  "data-row-focus"?: boolean;
}) {
  const path = target.kind === "mapping" ? "/hashmap/mappings" : "/hashmap/thresholds";
  const parent = context.parent;
  const mask = target.ruleId
    ? { to: `${path}/$ruleId` as const, params: { ruleId: target.ruleId } }
    : {
        to: `${path}/new` as const,
        search: {
          ...parent,
          ...(context.groupId && { group_id: context.groupId }),
        },
      };
  return (
    <Link
      to="."
      search={
        ((previous: Record<string, unknown>) => ({
          ...previous,
          rule: formatRulePanel(target),
        })) as never
      }
      mask={mask as never}
      // The panel replaces the list's history entry: one Back leaves the list, panel or not.
      replace
      resetScroll={false}
      className={className}
      {...aria}
    >
      {children}
    </Link>
  );
}

/** Edit and Delete for users who may change rules; View for the others (the form is read-only). */
function RuleActions({ row, onDelete }: { row: RuleRow; onDelete?: (row: RuleRow) => void }) {
  const { writeRules } = useCan();
  const label = describeRule(row);
  const verb = writeRules ? "Edit" : "View";
  return (
    <span className="row-actions">
      <RulePanelLink
        target={{ kind: row.kind, ruleId: row.id }}
        className="button small"
        aria-label={`${verb} ${label}`}
        data-row-focus
      >
        {verb}
      </RulePanelLink>
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

/** The full text of a cell cut to its column's width. */
function Cut({ text, className }: { text: string; className?: string }) {
  return (
    <span className={className} title={text}>
      {text}
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
  // Fixed widths for short values; the columns of names share what is left.
  return [
    ...(showKind
      ? [
          column.accessor("kind", {
            header: "Kind",
            meta: { width: "96px" },
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
              const text = info.getValue();
              return row.fieldId ? (
                <Link to="/hashmap/fields/$fieldId" params={{ fieldId: row.fieldId }} title={text}>
                  {text}
                </Link>
              ) : row.serviceId ? (
                <Link
                  to="/hashmap/services/$serviceId"
                  params={{ serviceId: row.serviceId }}
                  title={text}
                >
                  {text}
                </Link>
              ) : (
                <Cut text={text} />
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
            cell: (info) => <Cut className="mono" text={info.getValue() || "—"} />,
          }),
        ]
      : []),
    column.accessor("type", {
      header: "Type",
      meta: { width: "72px" },
      cell: (info) => <span className={`tag ${info.getValue()}`}>{info.getValue()}</span>,
    }),
    column.accessor("cost", {
      header: "Cost",
      meta: { width: "120px" },
      sortingFn: decimalSorting,
      cell: (info) => <Cut className="mono" text={info.getValue()} />,
    }),
    ...(showGroup
      ? [
          column.accessor("groupName", {
            header: "Group",
            cell: (info) => {
              const groupId = info.row.original.groupId;
              return groupId ? (
                <Link to="/hashmap/groups/$groupId" params={{ groupId }} title={info.getValue()}>
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
      meta: { width: "112px" },
      cell: (info) =>
        info.getValue() ? (
          <Cut className="mono" text={info.getValue()} />
        ) : (
          <span className="muted">All tenants</span>
        ),
    }),
    column.display({
      id: "actions",
      header: () => <span className="visually-hidden">Actions</span>,
      meta: { width: "152px" },
      cell: (info) => <RuleActions row={info.row.original} {...(onDelete && { onDelete })} />,
    }),
  ];
}
