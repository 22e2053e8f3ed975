import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useRouterState, useSearch } from "@tanstack/react-router";
import { createColumnHelper, flexRender } from "@tanstack/react-table";
import { useId, useMemo, useState, type ReactNode } from "react";
import { useLookups } from "../hooks";
import { formatApiMoment, ruleStatus } from "../lib/rule-form";
import { countText, filterRuleRows, type RuleListSearch } from "../lib/rule-list";
import {
  buildRuleRows,
  describeRule,
  formatSort,
  parseSort,
  type RuleKind,
  type RuleRow,
} from "../lib/rules";
import {
  badgeLabel,
  ruleWarningBadges,
  warningAnchor,
  warningsFilterForRows,
  type RuleWarningBadge,
} from "../lib/warnings";
import { useTRPC } from "../trpc";
import { DataTable } from "./DataTable";
import { DebouncedInput } from "./DebouncedInput";
import { DeleteRuleDialog } from "./DeleteDialogs";
import { NoMatch } from "./EmptyState";
import { LoadingRows } from "./QueryState";
import { RulePanel } from "./RulePanel";
import { ruleColumns, type NewRuleContext } from "./RuleTable";

/** A row's id in every rule list: mappings and thresholds have separate id spaces. */
export const ruleRowId = (row: { kind: RuleKind; id: string }) => `${row.kind}-${row.id}`;

/** Below this width the list scrolls sideways instead of squeezing its columns. */
const MIN_TABLE_WIDTH = 860;

const column = createColumnHelper<RuleRow>();

/**
 * Every list of rules in the console (a service's, a field's, a group's, the explorer): only the
 * visible rows are rendered, text, type and sort live in the query string, Edit and New open the
 * side panel over the list, and a saved rule is scrolled to and focused.
 */
export function RuleList({
  label,
  noun = "rule",
  rows,
  kind,
  matchHeader,
  showKind = false,
  showAttachedTo = false,
  showGroup = true,
  newRule,
  filters,
  loading = false,
  error,
  empty,
  warningsPanel = "this page",
}: {
  /** The table's accessible name. */
  label: string;
  /** What the count counts: "mapping", "threshold", "rule". */
  noun?: string;
  rows: readonly RuleRow[];
  /** Only the rules of this kind (the explorer shows both). */
  kind?: RuleKind | undefined;
  matchHeader?: string | undefined;
  showKind?: boolean;
  showAttachedTo?: boolean;
  showGroup?: boolean;
  /** What a new rule opened from this list is attached to. */
  newRule: NewRuleContext;
  /** Filter controls replacing the default search and type (the explorer's). */
  filters?: ReactNode;
  loading?: boolean;
  /** A load failure, shown instead of the table. */
  error?: ReactNode;
  /** Shown when there is nothing at all (no filter hides anything). */
  empty: ReactNode;
  /**
   * Where a row's warning badge leads: the warnings panel of this page (a service, field or group
   * page shows the warnings of its rules), or, with none on the page (the explorer), the warning's
   * service page.
   */
  warningsPanel?: "this page" | "service page";
}) {
  const search: RuleListSearch & Record<string, unknown> = useSearch({ strict: false });
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState<RuleRow | null>(null);
  const [focusRowId, setFocusRowId] = useState<string | undefined>();
  // Remounts the text input when the filters are cleared from outside it.
  const [resetCount, setResetCount] = useState(0);

  const update = (patch: Partial<RuleListSearch> & { deleted?: string | undefined }) =>
    void navigate({
      to: ".",
      search: ((previous: Record<string, unknown>) => ({ ...previous, ...patch })) as never,
      replace: true,
      resetScroll: false,
    });

  // "Show deleted" lives in the address as the other filters; the routes' search schemas do not
  // know it, so it is read from the address as typed.
  const rawSearch = useRouterState({ select: (state) => state.location.search }) as Record<
    string,
    unknown
  >;
  const showDeleted = !filters && isOn(rawSearch.deleted);
  const lifecycles = useRuleLifecycles(newRule, showDeleted);
  const listed = useMemo(
    () => (showDeleted ? [...rows, ...lifecycles.deletedRows] : rows),
    [rows, showDeleted, lifecycles.deletedRows],
  );
  const ofKind = useMemo(() => filterRuleRows(listed, { kind }), [listed, kind]);
  const shown = useMemo(
    () => filterRuleRows(ofKind, { type: search.type, q: search.q }),
    [ofKind, search.type, search.q],
  );
  const badges = useRuleWarningBadges(rows);
  const hasBadges = useMemo(() => rows.some((row) => badges.has(row.id)), [rows, badges]);
  const columns = useMemo(() => {
    const base = ruleColumns({
      ...(matchHeader && { matchHeader }),
      showKind,
      showAttachedTo,
      showGroup,
      onDelete: setDeleting,
    });
    const withDeleted = withDeletedRows(base, lifecycles.byRow);
    const actions = withDeleted.findIndex((candidate) => candidate.id === "actions");
    const at = actions === -1 ? withDeleted.length : actions;
    const status = column.display({
      id: "status",
      header: () => <span className="visually-hidden">Status</span>,
      meta: { width: "96px" },
      cell: (info) => {
        const life = lifecycles.byRow.get(rowKey(info.row.original));
        const text = life && !life.deleted ? ruleStatus(life) : null;
        if (!text || !life) return null;
        const title =
          text === "Scheduled" && life.start
            ? `Starts ${formatApiMoment(life.start)}`
            : life.end
              ? `Ended ${formatApiMoment(life.end)}`
              : text;
        return (
          <span className={`tag ${text === "Ended" ? "expired" : "scheduled"}`} title={title}>
            {text}
          </span>
        );
      },
    });
    const withStatus = lifecycles.hasStatus
      ? [...withDeleted.slice(0, at), status, ...withDeleted.slice(at)]
      : withDeleted;
    if (!hasBadges) return withStatus;
    const base2 = withStatus;
    // Beside the row's actions: only rows with a warning show anything.
    const actions2 = base2.findIndex((candidate) => candidate.id === "actions");
    const at2 = actions2 === -1 ? base2.length : actions2;
    const warnings = column.display({
      id: "warnings",
      header: () => <span className="visually-hidden">Warnings</span>,
      meta: { width: "72px" },
      cell: (info) => {
        const badge = badges.get(info.row.original.id);
        return badge ? <WarningBadge badge={badge} panel={warningsPanel} /> : null;
      },
    });
    return [...base2.slice(0, at2), warnings, ...base2.slice(at2)];
  }, [
    matchHeader,
    showKind,
    showAttachedTo,
    showGroup,
    hasBadges,
    badges,
    warningsPanel,
    lifecycles.byRow,
    lifecycles.hasStatus,
  ]);
  const filtered = Boolean(search.q || search.type || showDeleted);
  const clear = () => {
    update({ q: undefined, type: undefined, deleted: undefined });
    setResetCount((count) => count + 1);
  };

  return (
    <>
      {filters ?? (
        <RuleListFilters
          key={resetCount}
          search={search}
          showDeleted={showDeleted}
          onShowDeleted={(on) => update({ deleted: on ? "1" : undefined })}
          onChange={update}
          onClear={filtered ? clear : undefined}
        />
      )}
      <p className="result-count" role="status" aria-live="polite">
        {/* Under an error the rules are unknown, not zero. */}
        {loading
          ? `Loading ${noun}s…`
          : error
            ? null
            : countText(shown.length, ofKind.length, noun)}
      </p>
      {error ??
        (loading ? (
          <LoadingRows label={`Loading ${noun}s…`} rows={8} />
        ) : ofKind.length > 0 && shown.length === 0 && !filters ? (
          <NoMatch what={`${noun}s`} onClear={clear} />
        ) : (
          <DataTable
            label={label}
            virtualized
            fixedLayout={{ minWidth: MIN_TABLE_WIDTH }}
            columns={columns}
            data={shown}
            getRowId={ruleRowId}
            sorting={parseSort(search.sort)}
            onSortingChange={(sorting) => update({ sort: formatSort(sorting) })}
            focusRowId={focusRowId}
            empty={empty}
          />
        ))}
      <RulePanel context={newRule} onSaved={(saved) => setFocusRowId(ruleRowId(saved))} />
      {deleting && (
        <DeleteRuleDialog
          kind={deleting.kind}
          ruleId={deleting.id}
          revision={deleting.revision}
          description={describeRule(deleting)}
          onClose={() => setDeleting(null)}
          onDeleted={() => setDeleting(null)}
        />
      )}
    </>
  );
}

/**
 * The warnings that involve each of these rules, from the same hashmap.warnings query as the
 * page's warnings panel when the rows allow (one service, or one group), so no second request.
 */
function useRuleWarningBadges(rows: readonly RuleRow[]): Map<string, RuleWarningBadge> {
  const { lookups } = useLookups();
  const filter = useMemo(() => warningsFilterForRows(rows, lookups), [rows, lookups]);
  return useWarningBadges(filter, rows.length > 0);
}

/** Per rule id, the badge of the warnings that involve it (hashmap.warnings with `filter`). */
export function useWarningBadges(
  filter: { service_id?: string; group_id?: string },
  enabled = true,
): Map<string, RuleWarningBadge> {
  const trpc = useTRPC();
  const warnings = useQuery({ ...trpc.hashmap.warnings.queryOptions(filter), enabled });
  return useMemo(() => ruleWarningBadges(warnings.data?.warnings ?? []), [warnings.data]);
}

/**
 * A rule's warnings: a count that links to the warning in the warnings panel of this page, or of
 * the warning's service page (the explorer; the preview could use it too).
 */
export function WarningBadge({
  badge,
  panel,
}: {
  badge: RuleWarningBadge;
  panel: "this page" | "service page";
}) {
  const open = badge.open > 0;
  const label = badgeLabel(badge);
  const className = `warning-badge ${open ? "open" : "acknowledged"}`;
  const text = open ? `⚠ ${badge.open}` : `✓ ${badge.acknowledged}`;
  const hash = warningAnchor(badge.target.warning_key);
  const { service_id: serviceId, group_id: groupId } = badge.target;
  if (panel === "service page" && (serviceId || groupId)) {
    return serviceId ? (
      <Link
        to="/hashmap/services/$serviceId"
        params={{ serviceId }}
        hash={hash}
        className={className}
        aria-label={label}
        title={label}
      >
        {text}
      </Link>
    ) : (
      <Link
        to="/hashmap/groups/$groupId"
        params={{ groupId: groupId! }}
        hash={hash}
        className={className}
        aria-label={label}
        title={label}
      >
        {text}
      </Link>
    );
  }
  return (
    <Link
      to="."
      search={((previous: Record<string, unknown>) => previous) as never}
      hash={hash}
      resetScroll={false}
      className={className}
      aria-label={label}
      title={label}
    >
      {text}
    </Link>
  );
}

/** Text and type filters of a rule list; the text is committed once typing pauses. */
function RuleListFilters({
  search,
  showDeleted,
  onShowDeleted,
  onChange,
  onClear,
}: {
  search: RuleListSearch;
  showDeleted: boolean;
  onShowDeleted: (on: boolean) => void;
  onChange: (patch: Partial<RuleListSearch>) => void;
  onClear: (() => void) | undefined;
}) {
  const id = useId();
  return (
    <form
      className="filters"
      role="search"
      aria-label="Filter the list"
      onSubmit={(event) => event.preventDefault()}
    >
      <div className="filter-field grow">
        <label htmlFor={`${id}-q`}>Search</label>
        <DebouncedInput
          id={`${id}-q`}
          type="search"
          className="input"
          value={search.q ?? ""}
          placeholder="Value, level, cost, group, tenant…"
          onCommit={(q) => onChange({ q: q || undefined })}
        />
      </div>
      <div className="filter-field">
        <label htmlFor={`${id}-type`}>Type</label>
        <select
          id={`${id}-type`}
          className="input"
          value={search.type ?? ""}
          onChange={(event) =>
            onChange({ type: (event.target.value || undefined) as RuleListSearch["type"] })
          }
        >
          <option value="">Flat and rate</option>
          <option value="flat">Flat</option>
          <option value="rate">Rate</option>
        </select>
      </div>
      <label className="filter-check">
        <input
          type="checkbox"
          checked={showDeleted}
          onChange={(event) => onShowDeleted(event.target.checked)}
        />
        <span>Show deleted</span>
      </label>
      {onClear && (
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      )}
    </form>
  );
}

const isOn = (flag: unknown) => flag === true || flag === "1" || flag === "true";

const rowKey = (row: { kind: RuleKind; id: string }) => `${row.kind}:${row.id}`;

interface RuleLifecycle {
  start?: string | undefined;
  end?: string | null | undefined;
  deleted?: string | null | undefined;
  deleted_by?: string | null | undefined;
}

/**
 * The validity periods of the list's rules (the status badges) and, to show on request, its
 * soft-deleted rules: one list of each kind with `deleted=true`, narrowed to the list's parent or
 * group (the rows given to the list are built without their lifecycle).
 */
function useRuleLifecycles(context: NewRuleContext, showDeleted: boolean) {
  const trpc = useTRPC();
  const { lookups } = useLookups();
  const parent = context.parent;
  const filter = {
    ...(parent ?? (context.groupId ? { group_id: context.groupId } : {})),
    deleted: true,
  };
  const mappingList = useQuery(trpc.hashmap.mappings.list.queryOptions(filter)).data?.mappings;
  const thresholdList = useQuery(trpc.hashmap.thresholds.list.queryOptions(filter)).data
    ?.thresholds;
  return useMemo(() => {
    const byRow = new Map<string, RuleLifecycle>();
    for (const mapping of mappingList ?? [])
      byRow.set(rowKey({ kind: "mapping", id: mapping.mapping_id }), mapping);
    for (const threshold of thresholdList ?? [])
      byRow.set(rowKey({ kind: "threshold", id: threshold.threshold_id }), threshold);
    const deletedRows = showDeleted
      ? buildRuleRows(
          (mappingList ?? []).filter((mapping) => mapping.deleted),
          (thresholdList ?? []).filter((threshold) => threshold.deleted),
          lookups,
        )
      : [];
    const now = new Date();
    const hasStatus = [...byRow.values()].some((life) => !life.deleted && ruleStatus(life, now));
    return { byRow, deletedRows, hasStatus };
  }, [mappingList, thresholdList, showDeleted, lookups]);
}

/**
 * Deleted rules are history: greyed, without Edit or Delete, and saying who deleted them when.
 */
function withDeletedRows(
  columns: ReturnType<typeof ruleColumns>,
  lifecycles: Map<string, RuleLifecycle>,
): ReturnType<typeof ruleColumns> {
  return columns.map((definition) => ({
    ...definition,
    cell: (info) => {
      const life = lifecycles.get(rowKey(info.row.original));
      if (!life?.deleted) return flexRender(definition.cell, info);
      if (definition.id === "actions") {
        return (
          <span className="muted">
            Deleted{life.deleted_by ? ` by ${life.deleted_by}` : ""} at{" "}
            {formatApiMoment(life.deleted)}
          </span>
        );
      }
      return <span className="muted deleted-rule">{flexRender(definition.cell, info)}</span>;
    },
  }));
}
