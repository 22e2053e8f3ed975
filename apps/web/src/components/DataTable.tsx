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
import { useRef, type ReactNode } from "react";
import { compareDecimals } from "../lib/decimal";

/** Sorts a column of decimal strings by value (see compareDecimals). */
export function decimalSorting<T>(left: Row<T>, right: Row<T>, columnId: string): number {
  return compareDecimals(String(left.getValue(columnId)), String(right.getValue(columnId)));
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
  virtualized = false,
}: DataTableProps<T>) {
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
  });
  const rows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    enabled: virtualized,
  });

  if (data.length === 0) return <>{empty}</>;
  if (rows.length === 0) return <>{noMatch ?? empty}</>;

  const virtualRows = virtualized ? virtualizer.getVirtualItems() : [];
  const paddingTop = virtualized ? (virtualRows[0]?.start ?? 0) : 0;
  const paddingBottom = virtualized
    ? virtualizer.getTotalSize() - (virtualRows.at(-1)?.end ?? 0)
    : 0;
  const visibleRows = virtualized
    ? virtualRows.flatMap((item) => {
        const row = rows[item.index];
        return row ? [{ row, position: item.index }] : [];
      })
    : rows.map((row, position) => ({ row, position }));
  const columnCount = table.getVisibleLeafColumns().length;

  return (
    <div
      ref={scrollRef}
      className={virtualized ? "table-scroll virtual" : "table-scroll"}
      {...(virtualized && { tabIndex: 0, role: "region", "aria-label": `${label}, scrollable` })}
    >
      <table
        className="data-table"
        aria-label={label}
        aria-rowcount={virtualized ? rows.length + 1 : undefined}
      >
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
                      header.column.columnDef.size
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
          {visibleRows.map(({ row, position }) => (
            <tr
              key={row.id}
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
          ))}
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
