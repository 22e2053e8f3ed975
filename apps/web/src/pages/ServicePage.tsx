import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { createColumnHelper, type SortingState } from "@tanstack/react-table";
import { Tabs } from "radix-ui";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { ZFieldCreate, type TField, type TService } from "@ratecard/validators";
import { Breadcrumbs } from "../components/Breadcrumbs";
import { FlatRateHelp, GroupHelp, HelpBox, MappingHelp, ThresholdHelp } from "../components/Concepts";
import { CopyableId } from "../components/CopyableId";
import { DataTable } from "../components/DataTable";
import { DeleteFieldDialog, DeleteServiceDialog } from "../components/DeleteDialogs";
import { EmptyState } from "../components/EmptyState";
import { NameDialog } from "../components/NameDialog";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RuleSetWarnings } from "../components/RuleSetWarnings";
import { RuleTable } from "../components/RuleTable";
import { useLookups, useRefreshAll, useServiceRuleRows } from "../hooks";
import { buildRuleRows } from "../lib/rules";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/services/$serviceId");
const fieldColumn = createColumnHelper<TField>();

export function ServicePage() {
  const trpc = useTRPC();
  const { serviceId } = route.useParams();
  const service = useQuery(trpc.hashmap.services.get.queryOptions({ service_id: serviceId }));
  return (
    <QueryState
      query={service}
      notFound={<MissingRecord what="Service" backTo="/hashmap/services" backLabel="Back to services" />}
    >
      {(data) => <ServiceDetails service={data} />}
    </QueryState>
  );
}

function ServiceDetails({ service }: { service: TService }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const refreshAll = useRefreshAll();
  const { tab = "fields" } = route.useSearch();
  const filter = { service_id: service.service_id };
  const fields = useQuery(trpc.hashmap.fields.list.queryOptions(filter));
  const mappings = useQuery(trpc.hashmap.mappings.list.queryOptions(filter));
  const thresholds = useQuery(trpc.hashmap.thresholds.list.queryOptions(filter));
  const groups = useQuery(trpc.hashmap.groups.list.queryOptions());
  const warnings = useQuery(trpc.hashmap.warnings.queryOptions(filter));
  const { lookups } = useLookups();
  const serviceRules = useServiceRuleRows(service.service_id, lookups);
  const createField = useMutation(trpc.hashmap.fields.create.mutationOptions());
  const [creatingField, setCreatingField] = useState(false);
  const [deletingField, setDeletingField] = useState<TField | null>(null);
  const [deletingService, setDeletingService] = useState(false);
  const [fieldSorting, setFieldSorting] = useState<SortingState>([]);

  const rows = useMemo(
    () =>
      buildRuleRows(mappings.data?.mappings ?? [], thresholds.data?.thresholds ?? [], {
        services: [service],
        fields: fields.data?.fields ?? [],
        groups: groups.data?.groups ?? [],
      }),
    [service, mappings.data, thresholds.data, fields.data, groups.data],
  );

  const fieldColumns = useMemo(
    () => [
      fieldColumn.accessor("name", {
        header: "Name",
        cell: (info) => (
          <Link to="/hashmap/fields/$fieldId" params={{ fieldId: info.row.original.field_id }}>
            {info.getValue()}
          </Link>
        ),
      }),
      fieldColumn.accessor("field_id", {
        header: "Field ID",
        enableSorting: false,
        cell: (info) => <CopyableId id={info.getValue()} label="field ID" />,
      }),
      fieldColumn.display({
        id: "actions",
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (info) => (
          <button
            type="button"
            className="button small danger-outline"
            onClick={() => setDeletingField(info.row.original)}
            aria-label={`Delete field ${info.row.original.name}`}
          >
            Delete
          </button>
        ),
      }),
    ],
    [],
  );

  const setTab = (next: string) =>
    void navigate({
      to: "/hashmap/services/$serviceId",
      params: { serviceId: service.service_id },
      search: { tab: next === "fields" ? undefined : (next as "mappings" | "thresholds") },
      replace: true,
    });

  return (
    <section>
      <Breadcrumbs crumbs={[{ label: "Services", to: "/hashmap/services" }, { label: service.name }]} />
      <header className="page-header">
        <div>
          <p className="eyebrow">Service</p>
          <h1>{service.name}</h1>
          <CopyableId id={service.service_id} label="service ID" />
        </div>
        <div className="header-actions">
          <Link to="/preview" search={{ service: service.name }} className="button">
            Preview prices
          </Link>
          <button type="button" className="button danger-outline" onClick={() => setDeletingService(true)}>
            Delete service
          </button>
        </div>
      </header>
      <RuleSetWarnings query={warnings} lookups={lookups} rules={serviceRules} />

      <Tabs.Root value={tab} onValueChange={setTab} className="tabs">
        <Tabs.List className="tab-list" aria-label="Parts of the service">
          <Tabs.Trigger value="fields" className="tab">
            Fields <span className="count">{fields.data?.fields.length ?? "…"}</span>
          </Tabs.Trigger>
          <Tabs.Trigger value="mappings" className="tab">
            Service mappings <span className="count">{mappings.data?.mappings.length ?? "…"}</span>
          </Tabs.Trigger>
          <Tabs.Trigger value="thresholds" className="tab">
            Service thresholds <span className="count">{thresholds.data?.thresholds.length ?? "…"}</span>
          </Tabs.Trigger>
        </Tabs.List>

        <Tabs.Content value="fields" className="panel">
          <div className="toolbar">
            <p className="muted">
              A field is a metadata attribute of the metric (flavor_id, volume_type…). Its mappings price usages by the
              field's value.
            </p>
            <button type="button" className="button primary" onClick={() => setCreatingField(true)}>
              Add field
            </button>
          </div>
          <QueryState query={fields}>
            {(data) => (
              <DataTable
                label={`Fields of ${service.name}`}
                columns={fieldColumns}
                data={data.fields}
                getRowId={(field) => field.field_id}
                sorting={fieldSorting}
                onSortingChange={setFieldSorting}
                empty={
                  <EmptyState
                    title="No fields yet"
                    action={
                      <button type="button" className="button primary" onClick={() => setCreatingField(true)}>
                        Add the first field
                      </button>
                    }
                  >
                    Add a field to price usages by a metadata value, for example <code>flavor_id</code> for instances.
                  </EmptyState>
                }
              />
            )}
          </QueryState>
        </Tabs.Content>

        <Tabs.Content value="mappings" className="panel">
          <div className="toolbar">
            <p className="muted">Service mappings apply to every usage of {service.name}, whatever its metadata.</p>
            <Link to="/hashmap/mappings/new" search={{ service_id: service.service_id }} className="button primary">
              Add service mapping
            </Link>
          </div>
          <div className="help-row">
            <MappingHelp />
            <FlatRateHelp />
            <GroupHelp />
          </div>
          <QueryState query={mappings}>
            {() => (
              <RuleTable
                label={`Service mappings of ${service.name}`}
                kind="mapping"
                rows={rows}
                empty={
                  <EmptyState
                    title="No service mappings yet"
                    action={
                      <Link to="/hashmap/mappings/new" search={{ service_id: service.service_id }} className="button primary">
                        Add the first service mapping
                      </Link>
                    }
                  >
                    A flat service mapping sets the price per unit, for example 0.01 per hour for every instance.
                  </EmptyState>
                }
              />
            )}
          </QueryState>
        </Tabs.Content>

        <Tabs.Content value="thresholds" className="panel">
          <div className="toolbar">
            <p className="muted">Service thresholds compare the quantity used, for example volume discounts above 100 GiB.</p>
            <Link to="/hashmap/thresholds/new" search={{ service_id: service.service_id }} className="button primary">
              Add service threshold
            </Link>
          </div>
          <div className="help-row">
            <ThresholdHelp />
          </div>
          <QueryState query={thresholds}>
            {() => (
              <RuleTable
                label={`Service thresholds of ${service.name}`}
                kind="threshold"
                rows={rows}
                matchHeader="Level"
                empty={
                  <EmptyState
                    title="No service thresholds yet"
                    action={
                      <Link to="/hashmap/thresholds/new" search={{ service_id: service.service_id }} className="button primary">
                        Add the first service threshold
                      </Link>
                    }
                  >
                    A threshold changes the price from a quantity upwards.
                  </EmptyState>
                }
              />
            )}
          </QueryState>
        </Tabs.Content>
      </Tabs.Root>

      <NameDialog
        open={creatingField}
        onOpenChange={setCreatingField}
        title={`Add a field to ${service.name}`}
        description={
          <>
            The name of a metadata or groupby attribute of the metric, as the collector reports it. It must be unique within
            the service.
          </>
        }
        nameLabel="Field name"
        nameHint="For example flavor_id, volume_type or project_id."
        submitLabel="Add field"
        schema={ZFieldCreate}
        extraInput={{ service_id: service.service_id }}
        onSubmit={async (name) => {
          const field = await createField.mutateAsync({ name, service_id: service.service_id });
          toast.success(`Field “${field.name}” added to ${service.name}`);
          await refreshAll();
        }}
      />
      {deletingField && (
        <DeleteFieldDialog field={deletingField} onClose={() => setDeletingField(null)} onDeleted={() => setDeletingField(null)} />
      )}
      {deletingService && (
        <DeleteServiceDialog
          service={service}
          onClose={() => setDeletingService(false)}
          onDeleted={() => navigate({ to: "/hashmap/services" })}
        />
      )}
      <HelpBox summary="How is a usage of this service priced?">
        <p>
          For each group, the matching service mapping and field mappings give a flat price per unit and rate multipliers;
          the highest threshold reached applies; the group's price is rate × flat × quantity. The prices of all groups add
          up.
        </p>
      </HelpBox>
    </section>
  );
}
