import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { ZServiceCreate, type TService } from "@ratecard/validators";
import { HelpBox } from "../components/Concepts";
import { CopyableId } from "../components/CopyableId";
import { DataTable } from "../components/DataTable";
import { EmptyState, NoMatch } from "../components/EmptyState";
import { NameDialog } from "../components/NameDialog";
import { QueryState } from "../components/QueryState";
import { DeleteServiceDialog } from "../components/DeleteDialogs";
import { useRefreshAll } from "../hooks";
import { formatSort, parseSort } from "../lib/rules";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/services");
const column = createColumnHelper<TService>();

export function ServicesPage() {
  const trpc = useTRPC();
  const search = route.useSearch();
  const navigate = useNavigate({ from: "/hashmap/services" });
  const refreshAll = useRefreshAll();
  const services = useQuery(trpc.hashmap.services.list.queryOptions());
  const createService = useMutation(trpc.hashmap.services.create.mutationOptions());
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<TService | null>(null);

  const columns = useMemo(
    () => [
      column.accessor("name", {
        header: "Name",
        cell: (info) => (
          <Link to="/hashmap/services/$serviceId" params={{ serviceId: info.row.original.service_id }}>
            {info.getValue()}
          </Link>
        ),
      }),
      column.accessor("service_id", {
        header: "Service ID",
        enableSorting: false,
        cell: (info) => <CopyableId id={info.getValue()} label="service ID" />,
      }),
      column.display({
        id: "actions",
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (info) => (
          <button
            type="button"
            className="button small danger-outline"
            onClick={() => setDeleting(info.row.original)}
            aria-label={`Delete service ${info.row.original.name}`}
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
          <h1>Services</h1>
          <p className="lead">A service is one rated metric. Its fields, mappings and thresholds set its price.</p>
        </div>
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          Create service
        </button>
      </header>
      <HelpBox summary="How should a service be named?">
        <p>
          The name must equal the metric's <code>alt_name</code> in CloudKitty's metrics.yml if it has one, otherwise the
          metric's name: <code>cpu</code> with alt_name <code>instance</code> gives the service <code>instance</code>;{" "}
          <code>image.size</code> gives <code>image.size</code>. A service whose name matches no metric never prices
          anything.
        </p>
      </HelpBox>
      <div className="panel">
        <QueryState query={services}>
          {(data) => (
            <>
              {data.services.length > 0 && (
                <div className="toolbar">
                  <label className="filter">
                    <span className="visually-hidden">Filter services by name</span>
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
                label="Services"
                columns={columns}
                data={data.services}
                getRowId={(service) => service.service_id}
                sorting={parseSort(search.sort)}
                onSortingChange={(sorting) =>
                  void navigate({ search: (prev) => ({ ...prev, sort: formatSort(sorting) }), replace: true })
                }
                globalFilter={search.q ?? ""}
                globalFilterFn={(service, filter) => service.name.toLowerCase().includes(filter.trim().toLowerCase())}
                empty={
                  <EmptyState
                    title="No services yet"
                    action={
                      <button type="button" className="button primary" onClick={() => setCreating(true)}>
                        Create the first service
                      </button>
                    }
                  >
                    Create a service for each metric you want to price, for example <code>instance</code> or{" "}
                    <code>volume.size</code>.
                  </EmptyState>
                }
                noMatch={<NoMatch what="services" onClear={() => setQuery("")} />}
              />
            </>
          )}
        </QueryState>
      </div>
      <NameDialog
        open={creating}
        onOpenChange={setCreating}
        title="Create a service"
        description="The service is the metric to price, named as in CloudKitty's metrics.yml (its alt_name if it has one)."
        nameLabel="Service name"
        nameHint="For example instance, volume.size or image.size."
        submitLabel="Create service"
        schema={ZServiceCreate}
        onSubmit={async (name) => {
          const service = await createService.mutateAsync({ name });
          toast.success(`Service “${service.name}” created`);
          await refreshAll();
          await navigate({ to: "/hashmap/services/$serviceId", params: { serviceId: service.service_id } });
        }}
      />
      {deleting && (
        <DeleteServiceDialog
          service={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
