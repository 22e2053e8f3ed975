import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useId } from "react";
import { Breadcrumbs, type Crumb } from "../components/Breadcrumbs";
import {
  FlatRateHelp,
  GroupHelp,
  MappingHelp,
  TenantHelp,
  ThresholdHelp,
} from "../components/Concepts";
import { History } from "../components/History";
import { MissingRecord, QueryState } from "../components/QueryState";
import { RuleForm } from "../components/RuleForm";
import { useLookups } from "../hooks";
import {
  decodeParent,
  isFieldParent,
  newRuleFormValues,
  ruleFormValues,
  type ExistingRule,
  type RuleFormValues,
  type RuleParent,
} from "../lib/rule-form";
import { browserStorage, rememberedGroup } from "../lib/rule-list";
import type { RuleKind, RuleLookups } from "../lib/rules";
import { useCan } from "../session/permissions";
import { useTRPC } from "../trpc";

export function RuleNewPage({ kind }: { kind: RuleKind }) {
  const search = useSearch({ strict: false });
  const { lookups, isPending, error, refetch } = useLookups();
  const parent: RuleParent | null = search.field_id
    ? { field_id: search.field_id }
    : search.service_id
      ? { service_id: search.service_id }
      : null;
  return (
    <QueryState query={{ data: lookups, error, isPending, isError: Boolean(error), refetch }}>
      {(loaded) => (
        <RulePage
          kind={kind}
          lookups={loaded}
          defaults={newRuleFormValues({
            parent,
            groupId: search.group_id ?? rememberedGroup(browserStorage(), loaded.groups),
          })}
          parentFixed={parent !== null}
        />
      )}
    </QueryState>
  );
}

export function RuleEditPage({ kind }: { kind: RuleKind }) {
  const trpc = useTRPC();
  const { ruleId = "" } = useParams({ strict: false });
  const mapping = useQuery({
    ...trpc.hashmap.mappings.get.queryOptions({ mapping_id: ruleId }),
    enabled: kind === "mapping",
  });
  const threshold = useQuery({
    ...trpc.hashmap.thresholds.get.queryOptions({ threshold_id: ruleId }),
    enabled: kind === "threshold",
  });
  const rule: UseQueryResult<ExistingRule, unknown> = kind === "mapping" ? mapping : threshold;
  const { lookups, isPending, error, refetch } = useLookups();
  return (
    <QueryState
      query={rule}
      notFound={
        <MissingRecord
          what={kind === "mapping" ? "Mapping" : "Threshold"}
          backTo="/hashmap/rules"
          backLabel="Open the rules explorer"
        />
      }
    >
      {(ruleData) => (
        <QueryState query={{ data: lookups, error, isPending, isError: Boolean(error), refetch }}>
          {(loaded) => (
            <RulePage
              kind={kind}
              lookups={loaded}
              defaults={ruleFormValues(ruleData)}
              parentFixed
              ruleId={ruleId}
              revision={ruleData.revision}
            />
          )}
        </QueryState>
      )}
    </QueryState>
  );
}

function parentCrumbs(parent: RuleParent | null, lookups: RuleLookups): Crumb[] {
  const services: Crumb = { label: "Services", to: "/hashmap/services" };
  if (!parent) return [{ label: "Rules explorer", to: "/hashmap/rules" }];
  if (!isFieldParent(parent)) {
    const service = lookups.services.find(
      (candidate) => candidate.service_id === parent.service_id,
    );
    return [
      services,
      {
        label: service?.name ?? parent.service_id,
        to: "/hashmap/services/$serviceId",
        params: { serviceId: parent.service_id },
      },
    ];
  }
  const field = lookups.fields.find((candidate) => candidate.field_id === parent.field_id);
  const service = lookups.services.find((candidate) => candidate.service_id === field?.service_id);
  return [
    services,
    ...(service
      ? [
          {
            label: service.name,
            to: "/hashmap/services/$serviceId",
            params: { serviceId: service.service_id },
          },
        ]
      : []),
    {
      label: field?.name ?? parent.field_id,
      to: "/hashmap/fields/$fieldId",
      params: { fieldId: parent.field_id },
    },
  ];
}

/**
 * The rule form on a page of its own (a deep link, a new tab): after a save it returns to the
 * record the rule is attached to; from a list, the side panel is used instead (RulePanel).
 */
function RulePage({
  kind,
  lookups,
  defaults,
  parentFixed,
  ruleId,
  revision,
}: {
  kind: RuleKind;
  lookups: RuleLookups;
  defaults: RuleFormValues;
  parentFixed: boolean;
  ruleId?: string;
  revision?: number | undefined;
}) {
  const navigate = useNavigate();
  const parent = decodeParent(defaults.parent);

  const leave = (target: RuleParent | null) => {
    if (!target) return navigate({ to: "/hashmap/rules" });
    return isFieldParent(target)
      ? navigate({
          to: "/hashmap/fields/$fieldId",
          params: { fieldId: target.field_id },
          search: { tab: kind === "threshold" ? "thresholds" : undefined },
        })
      : navigate({
          to: "/hashmap/services/$serviceId",
          params: { serviceId: target.service_id },
          search: { tab: kind === "threshold" ? "thresholds" : "mappings" },
        });
  };

  return (
    <section>
      <RuleForm
        kind={kind}
        lookups={lookups}
        defaults={defaults}
        parentFixed={parentFixed}
        ruleId={ruleId}
        revision={revision}
        heading={(title) => (
          <>
            <Breadcrumbs
              crumbs={[...parentCrumbs(parentFixed ? parent : null, lookups), { label: title }]}
            />
            <header className="page-header">
              <div>
                <h1>{title}</h1>
              </div>
            </header>
          </>
        )}
        lead={(attachedTo) => <p className="lead page-lead">Attached to {attachedTo}</p>}
        onSaved={(saved) => leave(saved.parent)}
        onCancel={leave}
        aside={
          <aside className="form-help" aria-label="Help">
            {kind === "mapping" ? <MappingHelp /> : <ThresholdHelp />}
            <FlatRateHelp />
            <GroupHelp />
            <TenantHelp />
          </aside>
        }
      />
      {ruleId && <RuleHistory kind={kind} ruleId={ruleId} />}
    </section>
  );
}

/**
 * A rule's history below its form, as a script's is below its editor: for those the policy lets
 * read the audit trail.
 */
function RuleHistory({ kind, ruleId }: { kind: RuleKind; ruleId: string }) {
  const headingId = useId();
  const { readAudit } = useCan();
  if (!readAudit) return null;
  return (
    <section className="panel script-history" aria-labelledby={headingId}>
      <h2 id={headingId}>History</h2>
      <History
        label={`History of this ${kind}`}
        record={{ resource_type: kind, resource_id: ruleId }}
      />
    </section>
  );
}
