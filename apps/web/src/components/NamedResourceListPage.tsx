import { useNavigate, useSearch } from "@tanstack/react-router";
import type { ColumnDef, SortingState } from "@tanstack/react-table";
import { useMemo, useState, type ReactNode } from "react";
import { formatSort, parseSort } from "../lib/rules";
import { DataTable } from "./DataTable";
import { EmptyState, NoMatch } from "./EmptyState";
import { Allowed } from "../session/permissions";
import { QueryState, type QueryLike } from "./QueryState";
import { deleteActionColumn } from "./ResourceColumns";

/** The list pages whose search is `{ q, sort }`: the name filter and the sorted column. */
type ListRoute = "/hashmap/services" | "/hashmap/groups" | "/pyscripts";

function useListSearch(from: ListRoute) {
  const search = useSearch({ from });
  const navigate = useNavigate({ from });
  const update = (next: { q?: string | undefined; sort?: string | undefined }) =>
    void navigate({ search: (prev) => ({ ...prev, ...next }), replace: true });
  return {
    filter: search.q ?? "",
    sorting: parseSort(search.sort),
    setFilter: (q: string) => update({ q: q || undefined }),
    setSorting: (sorting: SortingState) => update({ sort: formatSort(sorting) }),
  };
}

function nameContains<T extends { name: string }>(record: T, filter: string): boolean {
  return record.name.toLowerCase().includes(filter.trim().toLowerCase());
}

/**
 * The list of one kind of named record: header with the create action, a name filter, the table
 * (with a Delete column) and "nothing yet" vs "nothing matches". The texts come from the nouns:
 * "Create group", "Filter groups by name", "No groups yet", "Create the first group".
 */
export function NamedResourceListPage<T extends { name: string }>({
  from,
  noun,
  plural,
  title,
  lead,
  help,
  renderCreate,
  query,
  columns,
  getRowId,
  emptyText,
  renderDeleteDialog,
  children,
}: {
  from: ListRoute;
  /** Singular, as in "Delete group …". */
  noun: string;
  /** As in "Filter groups by name". */
  plural: string;
  title: string;
  lead: ReactNode;
  help: ReactNode;
  /** The create button or link, given its text. */
  renderCreate: (label: string) => ReactNode;
  query: QueryLike<T[]>;
  /** The columns before the Delete column; keep the array stable (module level). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- column value types differ per column
  columns: ColumnDef<T, any>[];
  getRowId: (record: T) => string;
  emptyText: ReactNode;
  renderDeleteDialog: (record: T, close: () => void) => ReactNode;
  /** Dialogs of the page, such as its create dialog. */
  children?: ReactNode;
}) {
  const { filter, sorting, setFilter, setSorting } = useListSearch(from);
  const [deleting, setDeleting] = useState<T | null>(null);
  const columnsWithDelete = useMemo(
    () => [...columns, deleteActionColumn<T>(noun, setDeleting)],
    [columns, noun],
  );
  const closeDeleteDialog = () => setDeleting(null);

  return (
    <section>
      <header className="page-header">
        <div>
          <h1>{title}</h1>
          <p className="lead">{lead}</p>
        </div>
        <Allowed to="writeRules">{renderCreate(`Create ${noun}`)}</Allowed>
      </header>
      {help}
      <div className="panel">
        <QueryState query={query}>
          {(records) => (
            <>
              {records.length > 0 && (
                <div className="toolbar">
                  <label className="filter">
                    <span className="visually-hidden">{`Filter ${plural} by name`}</span>
                    <input
                      type="search"
                      className="input"
                      placeholder="Filter by name…"
                      value={filter}
                      onChange={(event) => setFilter(event.target.value)}
                    />
                  </label>
                </div>
              )}
              <DataTable
                label={title}
                columns={columnsWithDelete}
                data={records}
                getRowId={getRowId}
                sorting={sorting}
                onSortingChange={setSorting}
                globalFilter={filter}
                globalFilterFn={nameContains}
                empty={
                  <EmptyState
                    title={`No ${plural} yet`}
                    action={
                      <Allowed to="writeRules">{renderCreate(`Create the first ${noun}`)}</Allowed>
                    }
                  >
                    {emptyText}
                  </EmptyState>
                }
                noMatch={<NoMatch what={plural} onClear={() => setFilter("")} />}
              />
            </>
          )}
        </QueryState>
      </div>
      {children}
      {deleting && renderDeleteDialog(deleting, closeDeleteDialog)}
    </section>
  );
}
