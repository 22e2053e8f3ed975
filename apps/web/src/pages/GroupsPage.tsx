import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { ZGroupCreate, type TGroup } from "@ratecard/validators";
import { GroupHelp } from "../components/Concepts";
import { CopyableId } from "../components/CopyableId";
import { DataTable } from "../components/DataTable";
import { DeleteGroupDialog } from "../components/DeleteDialogs";
import { EmptyState, NoMatch } from "../components/EmptyState";
import { NameDialog } from "../components/NameDialog";
import { QueryState } from "../components/QueryState";
import { useRefreshAll } from "../hooks";
import { formatSort, parseSort } from "../lib/rules";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/groups");
const column = createColumnHelper<TGroup>();

export function GroupsPage() {
  const trpc = useTRPC();
  const search = route.useSearch();
  const navigate = useNavigate({ from: "/hashmap/groups" });
  const refreshAll = useRefreshAll();
  const groups = useQuery(trpc.hashmap.groups.list.queryOptions());
  const createGroup = useMutation(trpc.hashmap.groups.create.mutationOptions());
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<TGroup | null>(null);

  const columns = useMemo(
    () => [
      column.accessor("name", {
        header: "Name",
        cell: (info) => (
          <Link to="/hashmap/groups/$groupId" params={{ groupId: info.row.original.group_id }}>
            {info.getValue()}
          </Link>
        ),
      }),
      column.accessor("group_id", {
        header: "Group ID",
        enableSorting: false,
        cell: (info) => <CopyableId id={info.getValue()} label="group ID" />,
      }),
      column.display({
        id: "actions",
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (info) => (
          <button
            type="button"
            className="button small danger-outline"
            onClick={() => setDeleting(info.row.original)}
            aria-label={`Delete group ${info.row.original.name}`}
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
          <h1>Groups</h1>
          <p className="lead">Rules in one group are calculated together; the prices of the groups add up.</p>
        </div>
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          Create group
        </button>
      </header>
      <GroupHelp />
      <div className="panel">
        <QueryState query={groups}>
          {(data) => (
            <>
              {data.groups.length > 0 && (
                <div className="toolbar">
                  <label className="filter">
                    <span className="visually-hidden">Filter groups by name</span>
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
                label="Groups"
                columns={columns}
                data={data.groups}
                getRowId={(group) => group.group_id}
                sorting={parseSort(search.sort)}
                onSortingChange={(sorting) =>
                  void navigate({ search: (prev) => ({ ...prev, sort: formatSort(sorting) }), replace: true })
                }
                globalFilter={search.q ?? ""}
                globalFilterFn={(group, filter) => group.name.toLowerCase().includes(filter.trim().toLowerCase())}
                empty={
                  <EmptyState
                    title="No groups yet"
                    action={
                      <button type="button" className="button primary" onClick={() => setCreating(true)}>
                        Create the first group
                      </button>
                    }
                  >
                    Without groups every rule is in the default group. Create groups to price the same usage several times,
                    for example <code>instance_uptime</code> and <code>license_fees</code>.
                  </EmptyState>
                }
                noMatch={<NoMatch what="groups" onClear={() => setQuery("")} />}
              />
            </>
          )}
        </QueryState>
      </div>
      <NameDialog
        open={creating}
        onOpenChange={setCreating}
        title="Create a group"
        description="A group is priced on its own and added to the other groups. Give it a name that says what it charges for."
        nameLabel="Group name"
        nameHint="For example instance_uptime or license_fees."
        submitLabel="Create group"
        schema={ZGroupCreate}
        onSubmit={async (name) => {
          const group = await createGroup.mutateAsync({ name });
          toast.success(`Group “${group.name}” created`);
          await refreshAll();
        }}
      />
      {deleting && (
        <DeleteGroupDialog group={deleting} onClose={() => setDeleting(null)} onDeleted={() => setDeleting(null)} />
      )}
    </section>
  );
}
