import {
  flexRender,
  getCoreRowModel,
  getFilteredRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type Row,
  type SortingState,
} from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, type ReactNode } from "react";
import { compareDecimalsCached } from "../lib/sort-keys";
import "./data-table.css";

declare module "@tanstack/react-table" {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the names must match TanStack's
  interface ColumnMeta<TData, TValue> {
    /**
     * The column's CSS width in a fixed-layout table ("120px", "18%"); columns without one share
     * what is left. (TanStack gives every column a default `size`, so that cannot tell.)
     */
    width?: string;
  }
}

/** Sorts a column of decimal strings by value (see compareDecimals). */
export function decimalSorting<T>(left: Row<T>, right: Row<T>, columnId: string): number {
  return compareDecimalsCached(String(left.getValue(columnId)), String(right.getValue(columnId)));
}

/**
 * Rows the server sorts and serves a window at a time: the table spans `total` rows, renders the
 * ones it holds and a placeholder for the others, and says which rows are in view.
 */
export interface ServerRows<T> {
  total: number;
  /** The row at a position of the whole list, when its window has been read. */
  rowAt: (index: number) => T | undefined;
  /** The position of a row read so far, or -1. */
  indexOf: (rowId: string) => number;
  /** The rows in view (with a few beyond) changed. */
  onRangeChange: (first: number, last: number) => void;
  /** A new sort or filter is being read: what is shown is the previous one's. */
  busy: boolean;
}

interface DataTableProps<T> {
  /** The table's accessible name. */
  label: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- column value types differ per column
  columns: ColumnDef<T, any>[];
  data: T[];
  getRowId: (row: T) => string;
  sorting: SortingState;
  onSortingChange: (sorting: SortingState) => void;
  globalFilter?: string;
  globalFilterFn?: (row: T, filter: string) => boolean;
  /** Shown when there are no rows at all. */
  empty: ReactNode;
  /** Shown when rows exist but the filter hides them all. */
  noMatch?: ReactNode;
  /** Renders only the visible rows: for lists of thousands. */
  virtualized?: boolean;
  /**
   * Columns keep the widths their definitions give (`size`, `meta.width`; the others share the
   * rest) and cut long text, so widths never jump while rows scroll in. Below `minWidth` pixels
   * the table scrolls sideways.
   */
  fixedLayout?: { minWidth: number };
  /**
   * Scrolls to this row and focuses its control marked `data-row-focus` (or the row itself), e.g.
   * after it was saved; the row is highlighted while it stays the one named.
   */
  focusRowId?: string | undefined;
  /** Called once the row named by `focusRowId` has been focused. */
  onRowFocused?: () => void;
  /**
   * The rows are windows of a list the server sorts (`data` holds those read so far): no sorting
   * or filtering here, and `virtualized` is implied.
   */
  serverRows?: ServerRows<T> | undefined;
}

// A row with small action buttons; rows are measured once rendered.
const ROW_HEIGHT = 47;

export function DataTable<T>({
  label,
  columns,
  data,
  getRowId,
  sorting,
  onSortingChange,
  globalFilter = "",
  globalFilterFn,
  empty,
  noMatch,
  virtualized: virtualizedOption = false,
  fixedLayout,
  focusRowId,
  onRowFocused,
  serverRows,
}: DataTableProps<T>) {
  const virtualized = virtualizedOption || Boolean(serverRows);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table is used as documented
  const table = useReactTable({
    data,
    columns,
    getRowId,
    state: { sorting, globalFilter },
    onSortingChange: (updater) =>
      onSortingChange(typeof updater === "function" ? updater(sorting) : updater),
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
    globalFilterFn: (row: Row<T>, _columnId, filter: string) =>
      globalFilterFn ? globalFilterFn(row.original, filter) : true,
    enableMultiSort: false,
    manualSorting: Boolean(serverRows),
    manualFiltering: Boolean(serverRows),
  });
  const rows = table.getRowModel().rows;
  const rowCount = serverRows ? serverRows.total : rows.length;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    // Each row holds router links that cost a little to build: a sort re-renders every rendered
    // row, so few rows beyond the window (a sort of 10,000 rules took twice as long with 12).
    overscan: 6,
    enabled: virtualized,
  });

  const focusIndex = !focusRowId
    ? -1
    : serverRows
      ? serverRows.indexOf(focusRowId)
      : rows.findIndex((row) => row.id === focusRowId);
  // Each requested row is focused once, when it first appears (a save refetches the list).
  const focusedRef = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (focusIndex < 0 || !focusRowId || focusedRef.current === focusRowId) return;
    focusedRef.current = focusRowId;
    if (virtualized) virtualizer.scrollToIndex(focusIndex, { align: "auto" });
    // Once scrolled into the window, the row is rendered on a following frame.
    let attempts = 0;
    let frame = 0;
    const tryFocus = () => {
      const element = scrollRef.current?.querySelector<HTMLElement>(
        `[data-row-id="${CSS.escape(focusRowId)}"]`,
      );
      if (element) {
        const target = element.querySelector<HTMLElement>("[data-row-focus]") ?? element;
        target.focus({ preventScroll: virtualized });
        onRowFocused?.();
        // A row of the server's list may wait for its window to be read.
      } else if (attempts++ < (serverRows ? 600 : 30)) frame = requestAnimationFrame(tryFocus);
    };
    frame = requestAnimationFrame(tryFocus);
    return () => cancelAnimationFrame(frame);
    // The virtualizer is one stable instance.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focusRowId, focusIndex]);

  const virtualRows = virtualized ? virtualizer.getVirtualItems() : [];
  const firstShown = virtualRows[0]?.index ?? 0;
  const lastShown = virtualRows.at(-1)?.index ?? 0;
  const onRangeChange = serverRows?.onRangeChange;
  useEffect(() => {
    onRangeChange?.(firstShown, lastShown);
  }, [onRangeChange, firstShown, lastShown]);

  if (serverRows ? serverRows.total === 0 && !serverRows.busy : data.length === 0)
    return <>{empty}</>;
  if (rowCount === 0) return <>{noMatch ?? empty}</>;

  const paddingTop = virtualized ? (virtualRows[0]?.start ?? 0) : 0;
  const paddingBottom = virtualized
    ? virtualizer.getTotalSize() - (virtualRows.at(-1)?.end ?? 0)
    : 0;
  // A row read twice (the list moved between two windows' reads) is drawn once.
  const drawn = new Set<string>();
  const visibleRows: { row: Row<T> | undefined; position: number }[] = serverRows
    ? virtualRows.map((item) => {
        const original = serverRows.rowAt(item.index);
        const id = original === undefined ? undefined : getRowId(original);
        const row =
          id === undefined || drawn.has(id) ? undefined : table.getRowModel().rowsById[id];
        if (id !== undefined) drawn.add(id);
        return { row, position: item.index };
      })
    : virtualized
      ? virtualRows.flatMap((item) => {
          const row = rows[item.index];
          return row ? [{ row, position: item.index }] : [];
        })
      : rows.map((row, position) => ({ row, position }));
  const columnCount = table.getVisibleLeafColumns().length;

  const leafColumns = table.getVisibleLeafColumns();

  return (
    <div
      ref={scrollRef}
      className={virtualized ? "table-scroll virtual" : "table-scroll"}
      {...(virtualized && { tabIndex: 0, role: "region", "aria-label": `${label}, scrollable` })}
    >
      <table
        className={fixedLayout ? "data-table fixed" : "data-table"}
        aria-label={label}
        aria-rowcount={virtualized ? rowCount + 1 : undefined}
        aria-busy={serverRows?.busy || undefined}
        style={fixedLayout ? { minWidth: fixedLayout.minWidth } : undefined}
      >
        {fixedLayout && (
          <colgroup>
            {leafColumns.map((column) => {
              const width = column.columnDef.meta?.width;
              return <col key={column.id} style={width ? { width } : undefined} />;
            })}
          </colgroup>
        )}
        <thead>
          {table.getHeaderGroups().map((headerGroup) => (
            <tr key={headerGroup.id}>
              {headerGroup.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const canSort = header.column.getCanSort();
                const content = flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={
                      sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined
                    }
                    style={
                      !fixedLayout && header.column.columnDef.size
                        ? { width: header.column.columnDef.size }
                        : undefined
                    }
                  >
                    {canSort ? (
                      <button
                        type="button"
                        className="sort-button"
                        onClick={header.column.getToggleSortingHandler()}
                      >
                        {content}
                        <span className="sort-indicator" aria-hidden="true">
                          {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : "↕"}
                        </span>
                      </button>
                    ) : (
                      content
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {paddingTop > 0 && (
            <tr aria-hidden="true">
              <td colSpan={columnCount} style={{ height: paddingTop, padding: 0, border: 0 }} />
            </tr>
          )}
          {visibleRows.map(({ row, position }) =>
            row === undefined ? (
              // Its window is being read: a row of the estimated height, so the scroll holds.
              <tr
                key={`pending-${position}`}
                className="pending-row"
                ref={virtualizer.measureElement}
                data-index={position}
                aria-rowindex={position + 2}
              >
                <td colSpan={columnCount} style={{ height: ROW_HEIGHT }}>
                  <div className="skeleton-row" aria-hidden="true" />
                </td>
              </tr>
            ) : (
              <tr
                key={row.id}
                data-row-id={row.id}
                tabIndex={row.id === focusRowId ? -1 : undefined}
                className={row.id === focusRowId ? "just-saved" : undefined}
                {...(virtualized && {
                  ref: virtualizer.measureElement,
                  "data-index": position,
                  "aria-rowindex": position + 2,
                })}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            ),
          )}
          {paddingBottom > 0 && (
            <tr aria-hidden="true">
              <td colSpan={columnCount} style={{ height: paddingBottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
