import { useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { Tabs } from "radix-ui";
import { useMemo, useState } from "react";
import type { TField, TService } from "@ratecard/validators";
import { Breadcrumbs } from "../components/Breadcrumbs";
import {
  FlatRateHelp,
  GroupHelp,
  MappingHelp,
  TenantHelp,
  ThresholdHelp,
} from "../components/Concepts";
import { DeleteFieldDialog } from "../components/DeleteDialogs";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RecordHeader } from "../components/RecordHeader";
import { InPlaceRuleEditor } from "../components/InPlaceRuleEditor";
import { RuleSetWarnings } from "../components/RuleSetWarnings";
import { HistoryTab, HistoryTabPanel, RuleCountTab, RulesTabPanel } from "../components/RuleTabs";
import { useCollector, useLookups } from "../hooks";
import { collectorWarnings } from "../lib/collector";
import { useTRPC } from "../trpc";

const route = getRouteApi("/hashmap/fields/$fieldId");

export function FieldPage() {
  const trpc = useTRPC();
  const { fieldId } = route.useParams();
  const field = useQuery(trpc.hashmap.fields.get.queryOptions({ field_id: fieldId }));
  const service = useQuery({
    ...trpc.hashmap.services.get.queryOptions({ service_id: field.data?.service_id ?? "" }),
    enabled: Boolean(field.data),
  });
  const missing = (
    <MissingRecord what="Field" backTo="/hashmap/services" backLabel="Back to services" />
  );
  return (
    <QueryState query={field} notFound={missing}>
      {(fieldData) => (
        <QueryState query={service} notFound={missing}>
          {(serviceData) => <FieldDetails field={fieldData} service={serviceData} />}
        </QueryState>
      )}
    </QueryState>
  );
}

function FieldDetails({ field, service }: { field: TField; service: TService }) {
  const navigate = useNavigate();
  // Only the tab: the list's own search, sort and panel must not re-render the whole page.
  const tab = route.useSearch({ select: (search) => search.tab }) ?? "mappings";
  const [deleting, setDeleting] = useState(false);
  const newRule = { parent: { field_id: field.field_id } };
  const { lookups } = useLookups();
  const collector = useCollector();
  const unreported = useMemo(
    () => collectorWarnings(collector, service, [field]),
    [collector, service, field],
  );

  return (
    // Rules named outside the lists (the warnings) open in a panel over the page.
    <InPlaceRuleEditor>
      <section>
        <Breadcrumbs
          crumbs={[
            { label: "Services", to: "/hashmap/services" },
            {
              label: service.name,
              to: "/hashmap/services/$serviceId",
              params: { serviceId: service.service_id },
            },
            { label: field.name },
          ]}
        />
        <RecordHeader
          eyebrow={`Field of ${service.name}`}
          name={field.name}
          id={field.field_id}
          noun="field"
          onDelete={() => setDeleting(true)}
          action={
            <Link to="/preview" search={{ service: service.name }} className="button">
              Preview prices
            </Link>
          }
        />
        {/* The service's warnings that involve one of this field's rules. */}
        <RuleSetWarnings
          scope={{ field_id: field.field_id }}
          lookups={lookups}
          collectorWarnings={unreported}
        />

        <Tabs.Root
          value={tab}
          onValueChange={(next) =>
            void navigate({
              to: "/hashmap/fields/$fieldId",
              params: { fieldId: field.field_id },
              search: (previous) => ({
                ...previous,
                tab: next === "thresholds" || next === "history" ? next : undefined,
                rule: undefined,
              }),
              replace: true,
            })
          }
          className="tabs"
        >
          <Tabs.List className="tab-list" aria-label="Rules of the field">
            <RuleCountTab
              value="mappings"
              label="Field mappings"
              kind="mapping"
              newRule={newRule}
            />
            <RuleCountTab
              value="thresholds"
              label="Field thresholds"
              kind="threshold"
              newRule={newRule}
            />
            <HistoryTab />
          </Tabs.List>

          <RulesTabPanel
            kind="mapping"
            intro={
              <>
                Each mapping prices the usages whose <code>{field.name}</code> is exactly its value.
              </>
            }
            newRule={newRule}
            addLabel="Add field mapping"
            addFirstLabel="Add the first field mapping"
            help={
              <>
                <MappingHelp />
                <FlatRateHelp />
                <GroupHelp />
                <TenantHelp />
              </>
            }
            tableLabel={`Mappings of ${service.name} › ${field.name}`}
            matchHeader="Value"
            emptyTitle="No field mappings yet"
            emptyText={
              <>
                For example a flat 0.05 for <code>{field.name}</code> = <code>m1.small</code>.
              </>
            }
          />

          <RulesTabPanel
            kind="threshold"
            intro={
              <>
                Field thresholds compare the numeric value of <code>{field.name}</code> in the
                usage's metadata.
              </>
            }
            newRule={newRule}
            addLabel="Add field threshold"
            addFirstLabel="Add the first field threshold"
            help={<ThresholdHelp />}
            tableLabel={`Thresholds of ${service.name} › ${field.name}`}
            matchHeader="Level"
            emptyTitle="No field thresholds yet"
            emptyText="A threshold changes the price from a metadata value upwards."
          />
          <HistoryTabPanel
            label={`History of ${service.name} › ${field.name}`}
            record={{ resource_type: "field", resource_id: field.field_id }}
          />
        </Tabs.Root>
        {deleting && (
          <DeleteFieldDialog
            field={field}
            onClose={() => setDeleting(false)}
            onDeleted={() =>
              navigate({
                to: "/hashmap/services/$serviceId",
                params: { serviceId: service.service_id },
              })
            }
          />
        )}
      </section>
    </InPlaceRuleEditor>
  );
}
