import { useQueries, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { createColumnHelper, flexRender, type CellContext } from "@tanstack/react-table";
import { useCallback, useId, useMemo, useState, type ReactNode } from "react";
import type { TRuleWindow } from "@ratecard/validators";
import { formatApiMoment, ruleStatus } from "../lib/rule-form";
import { countText, type RuleListSearch } from "../lib/rule-list";
import {
  describeRule,
  formatSort,
  parseSort,
  type RuleKind,
  type RuleRow,
  type RuleStatus,
} from "../lib/rules";
import {
  isNarrowed,
  narrowingFilters,
  pageWindowFilters,
  RULE_WINDOW_SIZE,
  windowIndexes,
  windowRowToRuleRow,
  windowSort,
  type RuleWindowFilters,
} from "../lib/rule-window";
import { badgeLabel, warningAnchor, warningBadgeOf, type RuleWarningBadge } from "../lib/warnings";
import { useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import { DataTable, type ServerRows } from "./DataTable";
import { DebouncedInput } from "./DebouncedInput";
import { DeleteRuleDialog } from "./DeleteDialogs";
import { NoMatch } from "./EmptyState";
import { ErrorPanel, LoadingRows } from "./QueryState";
import { RulePanel } from "./RulePanel";
import { ruleColumns, type NewRuleContext } from "./RuleTable";

/** A row's id in every rule list: mappings and thresholds have separate id spaces. */
export const ruleRowId = (row: { kind: RuleKind; id: string }) => `${row.kind}-${row.id}`;

/** Below this width the list scrolls sideways instead of squeezing its columns. */
const MIN_TABLE_WIDTH = 860;

const column = createColumnHelper<RuleRow>();

/**
 * Every list of rules in the console (a service's, a field's, a group's, the explorer): the server
 * filters, searches, sorts and counts the rules (console.rules) and the list reads only the windows
 * of rows in view; text, type, status and sort live in the query string, Edit and New open the
 * side panel over the list, and a saved rule is scrolled to and focused.
 */
export function RuleList({
  label,
  noun = "rule",
  kind,
  windowFilters,
  matchHeader,
  showKind = false,
  showAttachedTo = false,
  showGroup = true,
  newRule,
  filters,
  error,
  empty,
  warningsPanel = "this page",
}: {
  /** The table's accessible name. */
  label: string;
  /** What the count counts: "mapping", "threshold", "rule". */
  noun?: string;
  /** Only the rules of this kind (the explorer shows both). */
  kind?: RuleKind | undefined;
  /**
   * Which rules the list holds before its own text, type and status filters (console.rules'
   * filters); by default the rules of `kind` attached to `newRule`'s parent, or in its group.
   */
  windowFilters?: RuleWindowFilters | undefined;
  matchHeader?: string | undefined;
  showKind?: boolean;
  showAttachedTo?: boolean;
  showGroup?: boolean;
  /** What a new rule opened from this list is attached to. */
  newRule: NewRuleContext;
  /** Filter controls replacing the default search and type (the explorer's). */
  filters?: ReactNode;
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

  const update = (patch: Partial<RuleListSearch>) =>
    void navigate({
      to: ".",
      search: ((previous: Record<string, unknown>) => ({ ...previous, ...patch })) as never,
      replace: true,
      resetScroll: false,
    });

  const base = windowFilters ?? pageWindowFilters(newRule, kind);
  // The moment a status filter judges at: when it was chosen, and again after each change made
  // here (a rule saved a second ago has started). Every window of the list shares it.
  const [statusAt, setStatusAt] = useState(() => ({ status: search.status, at: Date.now() }));
  const renewStatusMoment = () => setStatusAt({ status: search.status, at: Date.now() });
  // Taken once when the status changes (React's "adjusting state on a prop change"), not per render.
  // eslint-disable-next-line react-hooks/purity
  if (statusAt.status !== search.status) setStatusAt({ status: search.status, at: Date.now() });
  const narrowing = narrowingFilters(search, new Date(statusAt.at));
  const listed = useRuleWindows({ ...base, ...narrowing, ...windowSort(search.sort) }, focusRowId);
  // "3 of 2,000 shown": the count without the list's own filters (one row read, for its total).
  const trpc = useTRPC();
  const narrowed = isNarrowed(narrowing);
  const unfiltered = useQuery({
    ...trpc.console.rules.queryOptions({ ...base, offset: 0, limit: 1 }),
    enabled: narrowed,
  });
  const baseTotal = narrowed ? unfiltered.data?.total : listed.total;

  const hasStatus = useMemo(
    () => listed.rows.some((row) => !row.deleted && ruleStatus(row)),
    [listed.rows],
  );
  const badges = useMemo(() => {
    const byRule = new Map<string, RuleWarningBadge>();
    for (const row of listed.rows) {
      const badge = warningBadgeOf(row.warnings);
      if (badge) byRule.set(row.id, badge);
    }
    return byRule;
  }, [listed.rows]);
  const hasBadges = useMemo(
    () => listed.rows.some((row) => badges.has(row.id)),
    [listed.rows, badges],
  );
  const columns = useMemo(() => {
    const base = ruleColumns({
      ...(matchHeader && { matchHeader }),
      showKind,
      showAttachedTo,
      showGroup,
      onDelete: setDeleting,
    });
    const withDeleted = withDeletedRows(base);
    const status = column.display({
      id: "status",
      header: () => <span className="visually-hidden">Status</span>,
      meta: { width: "96px" },
      cell: (info) => {
        const life = info.row.original;
        if (life.deleted) return null;
        const text = ruleStatus(life);
        // The column shows only beside scheduled or ended rules; there, the others say they count.
        if (!text)
          return (
            <span className="tag in-force" title="In force now">
              Active
            </span>
          );
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
    // Beside the row's actions: only rows with a warning show anything.
    const warnings = column.display({
      id: "warnings",
      header: () => <span className="visually-hidden">Warnings</span>,
      meta: { width: "72px" },
      cell: (info) => {
        const badge = badges.get(info.row.original.id);
        return badge ? <WarningBadge badge={badge} panel={warningsPanel} /> : null;
      },
    });
    return beforeActions(withDeleted, [
      ...(hasStatus ? [status] : []),
      ...(hasBadges ? [warnings] : []),
    ]);
  }, [
    matchHeader,
    showKind,
    showAttachedTo,
    showGroup,
    hasBadges,
    badges,
    warningsPanel,
    hasStatus,
  ]);
  const filtered = Boolean(search.q || search.type || search.status);
  const clear = () => {
    update({ q: undefined, type: undefined, status: undefined });
    setResetCount((count) => count + 1);
  };
  const loadError = listed.error ?? unfiltered.error;
  const loading = listed.total === undefined || baseTotal === undefined;

  return (
    <>
      {filters ?? (
        <RuleListFilters
          key={resetCount}
          search={search}
          onChange={update}
          onClear={filtered ? clear : undefined}
        />
      )}
      <p className="result-count" role="status" aria-live="polite">
        {/* Under an error the rules are unknown, not zero. */}
        {error || loadError
          ? null
          : loading
            ? `Loading ${noun}s…`
            : countText(listed.total ?? 0, baseTotal ?? 0, noun)}
      </p>
      {error ??
        (loadError ? (
          <ErrorPanel
            error={loadError}
            onRetry={() => {
              listed.retry();
              void unfiltered.refetch();
            }}
          />
        ) : loading ? (
          <LoadingRows label={`Loading ${noun}s…`} rows={8} />
        ) : (baseTotal ?? 0) > 0 && listed.total === 0 && !listed.busy && !filters ? (
          <NoMatch what={`${noun}s`} onClear={clear} />
        ) : (
          <DataTable
            label={label}
            fixedLayout={{ minWidth: MIN_TABLE_WIDTH }}
            columns={columns}
            data={listed.rows}
            getRowId={ruleRowId}
            sorting={parseSort(search.sort)}
            onSortingChange={(sorting) => update({ sort: formatSort(sorting) })}
            focusRowId={focusRowId}
            empty={empty}
            serverRows={listed.serverRows}
          />
        ))}
      <RulePanel
        context={newRule}
        onSaved={(saved) => {
          setFocusRowId(ruleRowId(saved));
          renewStatusMoment();
        }}
      />
      {deleting && (
        <DeleteRuleDialog
          kind={deleting.kind}
          ruleId={deleting.id}
          revision={deleting.revision}
          description={describeRule(deleting)}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            setDeleting(null);
            renewStatusMoment();
          }}
        />
      )}
    </>
  );
}

// Rows of each window answer, made once per answer so that rows keep their identity (and the
// table its rendered cells) across renders.
const windowRows = new WeakMap<TRuleWindow, RuleRow[]>();
function rowsOf(answer: TRuleWindow): RuleRow[] {
  let rows = windowRows.get(answer);
  if (!rows) {
    rows = answer.rows.map(windowRowToRuleRow);
    windowRows.set(answer, rows);
  }
  return rows;
}

/**
 * The windows of console.rules a list has in view. Scrolling asks for the windows of the rows in
 * view; a new filter or sort keeps showing the previous rows of the same window (marked busy)
 * until its own arrive.
 */
function useRuleWindows(filters: RuleWindowFilters, focusRowId: string | undefined) {
  const trpc = useTRPC();
  const { seeWarnings } = useCan();
  const [indexes, setIndexes] = useState<number[]>([0]);
  const onRangeChange = useCallback((first: number, last: number) => {
    const next = windowIndexes(first, last, undefined);
    setIndexes((current) => (current.join() === next.join() ? current : next));
  }, []);
  const { loaded, pending, placeholder, error, refetch } = useQueries({
    queries: indexes.map((index) => ({
      ...trpc.console.rules.queryOptions({
        ...filters,
        offset: index * RULE_WINDOW_SIZE,
        limit: RULE_WINDOW_SIZE,
        // Each row's warnings, for its badge: no warnings answer naming every rule involved. A
        // role without ratecard:warnings gets rows without badges (the server would refuse).
        warnings: seeWarnings,
      }),
      // Only the same window of the previous filters or sort stands in for this one: another
      // window's rows would show at the wrong place while scrolling.
      placeholderData: (previous: TRuleWindow | undefined) =>
        previous?.offset === index * RULE_WINDOW_SIZE ? previous : undefined,
    })),
    combine: combineWindows,
  });
  // The last windows read in full stay shown (busy) while a new sort or filter, or windows
  // scrolled far down, are read: the table and its count stay in place.
  const [last, setLast] = useState<TRuleWindow[] | null>(null);
  const changed =
    last === null ||
    last.length !== loaded.length ||
    last.some((answer, index) => answer !== loaded[index]);
  if (loaded.length > 0 && !pending && !placeholder && changed) setLast(loaded);
  const stale = loaded.length === 0 && last !== null;
  const shown = stale ? last : loaded;
  const busy = placeholder || stale;
  const total = shown[0]?.total;
  const rows = useMemo(() => shown.flatMap(rowsOf), [shown]);
  const indexOfLoaded = useCallback(
    (rowId: string) => {
      for (const answer of shown) {
        const at = rowsOf(answer).findIndex((row) => ruleRowId(row) === rowId);
        if (at >= 0) return answer.offset + at;
      }
      return -1;
    },
    [shown],
  );
  // A saved rule outside the windows read: the server says where it is, the list scrolls there.
  const sought = focusRowId && indexOfLoaded(focusRowId) < 0 ? parseRuleRowId(focusRowId) : null;
  const located = useQuery({
    ...trpc.console.rules.queryOptions({ ...filters, offset: 0, limit: 1, find: sought! }),
    enabled: sought !== null && total !== undefined,
  });
  const position = sought ? located.data?.position : undefined;
  const serverRows = useMemo((): ServerRows<RuleRow> | undefined => {
    if (total === undefined) return undefined;
    const byOffset = new Map(shown.map((answer) => [answer.offset, rowsOf(answer)]));
    return {
      total,
      rowAt: (index) => {
        const offset = index - (index % RULE_WINDOW_SIZE);
        return byOffset.get(offset)?.[index - offset];
      },
      indexOf: (rowId) => {
        const at = indexOfLoaded(rowId);
        return at >= 0 || rowId !== focusRowId ? at : (position ?? -1);
      },
      onRangeChange,
      busy,
    };
  }, [total, shown, indexOfLoaded, focusRowId, position, onRangeChange, busy]);
  return {
    total,
    rows,
    serverRows,
    busy,
    error,
    retry: refetch,
  };
}

/** "mapping-<id>" (ruleRowId) -> what console.rules' `find` takes. */
function parseRuleRowId(rowId: string): { kind: RuleKind; id: string } | null {
  const dash = rowId.indexOf("-");
  const kind = rowId.slice(0, dash);
  return kind === "mapping" || kind === "threshold" ? { kind, id: rowId.slice(dash + 1) } : null;
}

/** The answers of a list's windows, read so far (re-run only when one of them changed). */
function combineWindows(
  queries: {
    data: TRuleWindow | undefined;
    isPlaceholderData: boolean;
    error: unknown;
    refetch: () => Promise<unknown>;
  }[],
) {
  return {
    loaded: queries.flatMap((query) => (query.data === undefined ? [] : [query.data])),
    pending: queries.some((query) => query.data === undefined),
    placeholder: queries.some((query) => query.isPlaceholderData),
    error: (queries.find((query) => query.error)?.error ?? null) as Error | null,
    refetch: () => queries.forEach((query) => void query.refetch()),
  };
}

/** `columns` with `added` just before the row's actions (or at the end without them). */
function beforeActions<T extends { id?: string | undefined }>(columns: T[], added: T[]): T[] {
  const actions = columns.findIndex((candidate) => candidate.id === "actions");
  const at = actions === -1 ? columns.length : actions;
  return [...columns.slice(0, at), ...added, ...columns.slice(at)];
}

/**
 * A rule's warnings: a count that links to the warning in the warnings panel of this page, or of
 * the warning's service page (the explorer, the price preview).
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
  onChange,
  onClear,
}: {
  search: RuleListSearch;
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
      <div className="filter-field">
        <label htmlFor={`${id}-status`}>Status</label>
        <RuleStatusSelect
          id={`${id}-status`}
          value={search.status}
          onChange={(status) => onChange({ status })}
        />
      </div>
      {onClear && (
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      )}
    </form>
  );
}

/** The lifecycle filter of every rule list; "Deleted" lists only soft-deleted rules. */
export function RuleStatusSelect({
  id,
  value,
  onChange,
}: {
  id: string;
  value: RuleStatus | undefined;
  onChange: (status: RuleStatus | undefined) => void;
}) {
  return (
    <select
      id={id}
      className="input"
      value={value ?? ""}
      onChange={(event) => onChange((event.target.value || undefined) as RuleStatus | undefined)}
    >
      <option value="">Any (not deleted)</option>
      <option value="in_force">In force</option>
      <option value="scheduled">Scheduled</option>
      <option value="ended">Ended</option>
      <option value="deleted">Deleted</option>
    </select>
  );
}

/**
 * Deleted rules are history: greyed, without Edit or Delete, and saying who deleted them when.
 */
function withDeletedRows(columns: ReturnType<typeof ruleColumns>): ReturnType<typeof ruleColumns> {
  return columns.map((definition) => ({
    ...definition,
    cell: (info: CellContext<RuleRow, unknown>) => {
      const row = info.row.original;
      if (!row.deleted) return flexRender(definition.cell, info);
      if (definition.id === "actions") {
        return (
          <span className="muted">
            Deleted{row.deleted_by ? ` by ${row.deleted_by}` : ""} at {formatApiMoment(row.deleted)}
          </span>
        );
      }
      return <span className="muted deleted-rule">{flexRender(definition.cell, info)}</span>;
    },
  }));
}
