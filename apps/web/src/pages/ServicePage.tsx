import { useMutation, useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import type { SortingState } from "@tanstack/react-table";
import { Tabs } from "radix-ui";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { ZFieldCreate, type TField, type TService } from "@ratecard/validators";
import { Breadcrumbs } from "../components/Breadcrumbs";
import {
  FlatRateHelp,
  GroupHelp,
  HelpBox,
  MappingHelp,
  ThresholdHelp,
} from "../components/Concepts";
import { DataTable } from "../components/DataTable";
import { DeleteFieldDialog, DeleteServiceDialog } from "../components/DeleteDialogs";
import { EmptyState } from "../components/EmptyState";
import { NameDialog } from "../components/NameDialog";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RecordHeader } from "../components/RecordHeader";
import { deleteActionColumn, idColumn, nameLinkColumn } from "../components/ResourceColumns";
import { InPlaceRuleEditor } from "../components/InPlaceRuleEditor";
import { RuleSetWarnings } from "../components/RuleSetWarnings";
import {
  CountedTab,
  HistoryTab,
  HistoryTabPanel,
  RuleCountTab,
  RulesTabPanel,
} from "../components/RuleTabs";
import { useCollector, useLookups, useRefreshAll } from "../hooks";
import { collectorWarnings, fieldNameAdvice, fieldNames } from "../lib/collector";
import { Allowed } from "../session/permissions";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/services/$serviceId");

export function ServicePage() {
  const trpc = useTRPC();
  const { serviceId } = route.useParams();
  const service = useQuery(trpc.hashmap.services.get.queryOptions({ service_id: serviceId }));
  return (
    <QueryState
      query={service}
      notFound={
        <MissingRecord what="Service" backTo="/hashmap/services" backLabel="Back to services" />
      }
    >
      {(data) => <ServiceDetails service={data} />}
    </QueryState>
  );
}

function ServiceDetails({ service }: { service: TService }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const refreshAll = useRefreshAll();
  // Only the tab: the list's own search, sort and panel must not re-render the whole page.
  const tab = route.useSearch({ select: (search) => search.tab }) ?? "fields";
  const filter = { service_id: service.service_id };
  const fields = useQuery(trpc.hashmap.fields.list.queryOptions(filter));
  const { lookups } = useLookups();
  const createField = useMutation(trpc.hashmap.fields.create.mutationOptions());
  const [creatingField, setCreatingField] = useState(false);
  const [deletingField, setDeletingField] = useState<TField | null>(null);
  const [deletingService, setDeletingService] = useState(false);
  const [fieldSorting, setFieldSorting] = useState<SortingState>([]);
  const collector = useCollector();
  const unreported = useMemo(
    () => collectorWarnings(collector, service, fields.data?.fields ?? []),
    [collector, service, fields.data],
  );
  // Fields the service already has are not offered again: the API refuses duplicates.
  const suggestedFields = fieldNames(collector, service.name).filter(
    (name) => !fields.data?.fields.some((field) => field.name === name),
  );

  const fieldColumns = useMemo(
    () => [
      nameLinkColumn<TField>((field) => (
        <Link to="/hashmap/fields/$fieldId" params={{ fieldId: field.field_id }}>
          {field.name}
        </Link>
      )),
      idColumn<TField>("field", (field) => field.field_id),
      deleteActionColumn<TField>("field", setDeletingField),
    ],
    [],
  );

  const newRule = { parent: { service_id: service.service_id } };

  const setTab = (next: string) =>
    void navigate({
      to: "/hashmap/services/$serviceId",
      params: { serviceId: service.service_id },
      search: (previous) => ({
        ...previous,
        tab: next === "fields" ? undefined : (next as "mappings" | "thresholds" | "history"),
        rule: undefined,
      }),
      replace: true,
    });

  return (
    // Rules named outside the lists (the warnings) open in a panel over the page.
    <InPlaceRuleEditor>
      <section>
        <Breadcrumbs
          crumbs={[{ label: "Services", to: "/hashmap/services" }, { label: service.name }]}
        />
        <RecordHeader
          eyebrow="Service"
          name={service.name}
          id={service.service_id}
          noun="service"
          onDelete={() => setDeletingService(true)}
          action={
            <Link to="/preview" search={{ service: service.name }} className="button">
              Preview prices
            </Link>
          }
        />
        <RuleSetWarnings scope={filter} lookups={lookups} collectorWarnings={unreported} />

        <Tabs.Root value={tab} onValueChange={setTab} className="tabs">
          <Tabs.List className="tab-list" aria-label="Parts of the service">
            <CountedTab value="fields" label="Fields" count={fields.data?.fields.length} />
            <RuleCountTab
              value="mappings"
              label="Service mappings"
              kind="mapping"
              newRule={newRule}
            />
            <RuleCountTab
              value="thresholds"
              label="Service thresholds"
              kind="threshold"
              newRule={newRule}
            />
            <HistoryTab />
          </Tabs.List>

          <Tabs.Content value="fields" className="panel">
            <div className="toolbar">
              <p className="muted">
                A field is a metadata attribute of the metric (flavor_id, volume_type…). Its
                mappings price usages by the field's value.
              </p>
              <Allowed to="writeRules">
                <button
                  type="button"
                  className="button primary"
                  onClick={() => setCreatingField(true)}
                >
                  Add field
                </button>
              </Allowed>
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
                        <Allowed to="writeRules">
                          <button
                            type="button"
                            className="button primary"
                            onClick={() => setCreatingField(true)}
                          >
                            Add the first field
                          </button>
                        </Allowed>
                      }
                    >
                      Add a field to price usages by a metadata value, for example{" "}
                      <code>flavor_id</code> for instances.
                    </EmptyState>
                  }
                />
              )}
            </QueryState>
          </Tabs.Content>

          <RulesTabPanel
            kind="mapping"
            intro={`Service mappings apply to every usage of ${service.name}, whatever its metadata.`}
            newRule={newRule}
            addLabel="Add service mapping"
            addFirstLabel="Add the first service mapping"
            help={
              <>
                <MappingHelp />
                <FlatRateHelp />
                <GroupHelp />
              </>
            }
            tableLabel={`Service mappings of ${service.name}`}
            emptyTitle="No service mappings yet"
            emptyText="A flat service mapping sets the price per unit, for example 0.01 per hour for every instance."
          />

          <RulesTabPanel
            kind="threshold"
            intro="Service thresholds compare the quantity used, for example volume discounts above 100 GiB."
            newRule={newRule}
            addLabel="Add service threshold"
            addFirstLabel="Add the first service threshold"
            help={<ThresholdHelp />}
            tableLabel={`Service thresholds of ${service.name}`}
            matchHeader="Level"
            emptyTitle="No service thresholds yet"
            emptyText="A threshold changes the price from a quantity upwards."
          />
          <HistoryTabPanel
            label={`History of ${service.name}`}
            record={{ resource_type: "service", resource_id: service.service_id }}
          />
        </Tabs.Root>

        <NameDialog
          open={creatingField}
          onOpenChange={setCreatingField}
          title={`Add a field to ${service.name}`}
          description={
            <>
              The name of a metadata or groupby attribute of the metric, as the collector reports
              it. It must be unique within the service.
            </>
          }
          nameLabel="Field name"
          nameHint={
            suggestedFields.length > 0
              ? `Pick one of the attributes the collector reports for ${service.name}, or type a name.`
              : "For example flavor_id, volume_type or project_id."
          }
          submitLabel="Add field"
          schema={ZFieldCreate}
          suggestions={suggestedFields}
          {...(collector && {
            adviseOn: (name: string) => fieldNameAdvice(collector, service.name, name),
          })}
          extraInput={{ service_id: service.service_id }}
          onSubmit={async (name) => {
            const field = await createField.mutateAsync({ name, service_id: service.service_id });
            toast.success(`Field “${field.name}” added to ${service.name}`);
            await refreshAll();
          }}
        />
        {deletingField && (
          <DeleteFieldDialog
            field={deletingField}
            onClose={() => setDeletingField(null)}
            onDeleted={() => setDeletingField(null)}
          />
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
            For each group, the matching service mapping and field mappings give a flat price per
            unit and rate multipliers; the highest threshold reached applies; the group's price is
            rate × flat × quantity. The prices of all groups add up.
          </p>
        </HelpBox>
      </section>
    </InPlaceRuleEditor>
  );
}
