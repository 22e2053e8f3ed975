import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import type { TScript } from "@ratecard/validators";
import { HelpBox } from "../components/Concepts";
import { DataTable } from "../components/DataTable";
import { DeleteScriptDialog } from "../components/DeleteDialogs";
import { EmptyState, NoMatch } from "../components/EmptyState";
import { QueryState } from "../components/QueryState";
import { formatSort, parseSort } from "../lib/rules";
import { useTRPC } from "../trpc";

const route = getRouteApi("/pyscripts");
const column = createColumnHelper<TScript>();

export function ScriptsPage() {
  const trpc = useTRPC();
  const search = route.useSearch();
  const navigate = useNavigate({ from: "/pyscripts" });
  // The list leaves out the sources: they can be large, and the script page loads one.
  const scripts = useQuery(trpc.pyscripts.scripts.list.queryOptions({ no_data: true }));
  const [deleting, setDeleting] = useState<TScript | null>(null);
  const columns = useMemo(
    () => [
      column.accessor("name", {
        header: "Name",
        cell: (info) => (
          <Link to="/pyscripts/$scriptId" params={{ scriptId: info.row.original.script_id }}>
            {info.getValue()}
          </Link>
        ),
      }),
      column.accessor("checksum", {
        header: "Checksum (SHA-512)",
        enableSorting: false,
        cell: (info) => (
          <code className="checksum" title={info.getValue()}>
            {info.getValue().slice(0, 16)}…
          </code>
        ),
      }),
      column.display({
        id: "actions",
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (info) => (
          <button
            type="button"
            className="button small danger-outline"
            onClick={() => setDeleting(info.row.original)}
            aria-label={`Delete script ${info.row.original.name}`}
          >
            Delete
          </button>
        ),
      }),
    ],
    [],
  );
  const setQuery = (q: string) => void navigate({ search: (prev) => ({ ...prev, q: q || undefined }), replace: true });

  return (
    <section>
      <header className="page-header">
        <div>
          <h1>Scripts</h1>
          <p className="lead">Python scripts run by the PyScripts rating module to set prices.</p>
        </div>
        <Link to="/pyscripts/new" className="button primary">
          Create script
        </Link>
      </header>
      <HelpBox summary="What does a script do?">
        <p>
          Each script receives the usage to rate in a global <code>data</code> (
          <code>data['usage'][service]</code> holds items with <code>item['vol']['qty']</code> and{" "}
          <code>item['metadata']</code>) and sets <code>item['rating'] = {"{'price': …}"}</code>. When there are several
          scripts, the order in which they run is not guaranteed.
        </p>
      </HelpBox>
      <div className="panel">
        <QueryState query={scripts}>
          {(data) => (
            <>
              {data.scripts.length > 0 && (
                <div className="toolbar">
                  <label className="filter">
                    <span className="visually-hidden">Filter scripts by name</span>
                    <input
                      type="search"
                      className="input"
                      placeholder="Filter by name…"
                      value={search.q ?? ""}
                      onChange={(event) => setQuery(event.target.value)}
                    />
                  </label>
                </div>
              )}
              <DataTable
                label="Scripts"
                columns={columns}
                data={data.scripts}
                getRowId={(script) => script.script_id}
                sorting={parseSort(search.sort)}
                onSortingChange={(sorting) =>
                  void navigate({ search: (prev) => ({ ...prev, sort: formatSort(sorting) }), replace: true })
                }
                globalFilter={search.q ?? ""}
                globalFilterFn={(script, filter) => script.name.toLowerCase().includes(filter.trim().toLowerCase())}
                empty={
                  <EmptyState
                    title="No scripts yet"
                    action={
                      <Link to="/pyscripts/new" className="button primary">
                        Create the first script
                      </Link>
                    }
                  >
                    Paste a Python rating script or upload a <code>.py</code> file.
                  </EmptyState>
                }
                noMatch={<NoMatch what="scripts" onClear={() => setQuery("")} />}
              />
            </>
          )}
        </QueryState>
      </div>
      {deleting && (
        <DeleteScriptDialog script={deleting} onClose={() => setDeleting(null)} onDeleted={() => setDeleting(null)} />
      )}
    </section>
  );
}
