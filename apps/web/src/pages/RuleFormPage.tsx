import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { RadioGroup } from "radix-ui";
import { useMemo } from "react";
import { Controller, useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { RULE_TYPES, type TRuleType } from "@ratecard/validators";
import { Breadcrumbs, type Crumb } from "../components/Breadcrumbs";
import {
  FlatRateHelp,
  GroupHelp,
  MappingHelp,
  TenantHelp,
  ThresholdHelp,
} from "../components/Concepts";
import { FormField } from "../components/FormField";
import { MissingRecord, QueryState } from "../components/QueryState";
import { useLookups, useRefreshAll } from "../hooks";
import { describeProblem } from "../lib/errors";
import {
  decodeParent,
  isFieldParent,
  newRuleFormValues,
  ruleFormValues,
  ZMappingForm,
  ZThresholdForm,
  type ExistingRule,
  type MappingInput,
  type RuleFormValues,
  type RuleParent,
  type ThresholdInput,
} from "../lib/rule-form";
import { ruleLabeller, type RuleKind, type RuleLookups } from "../lib/rules";
import { ReadOnlyNotice, useCan } from "../session/permissions";
import { useTRPC } from "../trpc";

type RuleInput = MappingInput | ThresholdInput;

const TYPE_DESCRIPTIONS: Record<TRuleType, string> = {
  flat: "A price per unit, multiplied by the quantity.",
  rate: "A multiplier of the group's flat price (0.9 = 10% off). Alone in a group it prices 0.",
};

export function RuleNewPage({ kind }: { kind: RuleKind }) {
  const search = useSearch({ strict: false });
  const { lookups, isPending, error, refetch } = useLookups();
  const parent: RuleParent | null = search.field_id
    ? { field_id: search.field_id }
    : search.service_id
      ? { service_id: search.service_id }
      : null;
  const defaults = newRuleFormValues({ parent, groupId: search.group_id });
  return (
    <QueryState query={{ data: lookups, error, isPending, isError: Boolean(error), refetch }}>
      {(loaded) => (
        <RuleForm kind={kind} lookups={loaded} defaults={defaults} parentFixed={parent !== null} />
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
            <RuleForm
              kind={kind}
              lookups={loaded}
              defaults={ruleFormValues(ruleData)}
              parentFixed
              ruleId={ruleId}
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

function RuleForm({
  kind,
  lookups,
  defaults,
  parentFixed,
  ruleId,
}: {
  kind: RuleKind;
  lookups: RuleLookups;
  defaults: RuleFormValues;
  parentFixed: boolean;
  ruleId?: string;
}) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const refreshAll = useRefreshAll();
  const { writeRules } = useCan();
  const types = useQuery(trpc.hashmap.types.list.queryOptions());
  const createMapping = useMutation(trpc.hashmap.mappings.create.mutationOptions());
  const updateMapping = useMutation(trpc.hashmap.mappings.update.mutationOptions());
  const createThreshold = useMutation(trpc.hashmap.thresholds.create.mutationOptions());
  const updateThreshold = useMutation(trpc.hashmap.thresholds.update.mutationOptions());
  const form = useForm<RuleFormValues, unknown, RuleInput>({
    defaultValues: defaults,
    resolver: zodResolver(kind === "mapping" ? ZMappingForm : ZThresholdForm),
  });
  const { errors, isSubmitting } = form.formState;
  const parent = decodeParent(useWatch({ control: form.control, name: "parent" }));
  const label = useMemo(() => ruleLabeller(lookups), [lookups]);
  const noun = kind === "mapping" ? "mapping" : "threshold";
  const parentKind = isFieldParent(parent) ? "field" : parent ? "service" : "";
  const title = (
    ruleId
      ? writeRules
        ? `Edit ${parentKind} ${noun}`
        : `${parentKind} ${noun}`
      : `New ${parentKind} ${noun}`
  )
    .replace("  ", " ")
    .trim()
    .replace(/^./, (first) => first.toUpperCase());

  const leave = () => {
    if (!parent) return navigate({ to: "/hashmap/rules" });
    const tab = kind === "threshold" ? "thresholds" : undefined;
    return isFieldParent(parent)
      ? navigate({
          to: "/hashmap/fields/$fieldId",
          params: { fieldId: parent.field_id },
          search: { tab },
        })
      : navigate({
          to: "/hashmap/services/$serviceId",
          params: { serviceId: parent.service_id },
          search: { tab: kind === "threshold" ? "thresholds" : "mappings" },
        });
  };

  const save = (input: RuleInput) => {
    if (kind === "mapping") {
      const mapping = input as MappingInput;
      return ruleId
        ? updateMapping.mutateAsync({ ...mapping, mapping_id: ruleId })
        : createMapping.mutateAsync(mapping);
    }
    const threshold = input as ThresholdInput;
    return ruleId
      ? updateThreshold.mutateAsync({ ...threshold, threshold_id: ruleId })
      : createThreshold.mutateAsync(threshold);
  };

  const submit = form.handleSubmit(async (input) => {
    try {
      await save(input);
    } catch (error) {
      const problem = describeProblem(error);
      const fieldNames = Object.keys(problem.fieldErrors) as (keyof RuleFormValues)[];
      for (const name of fieldNames) form.setError(name, { message: problem.fieldErrors[name] });
      if (problem.code === "CONFLICT") {
        const message =
          kind === "threshold"
            ? "A threshold with this level, tenant and group already exists here. Change one of them, or edit the existing threshold."
            : isFieldParent(parent)
              ? "A mapping for this value with the same tenant and group already exists here. Change one of them, or edit the existing mapping."
              : "A service mapping with the same tenant and group already exists here. Change the group or tenant, or edit the existing mapping.";
        form.setError(
          kind === "threshold" ? "level" : isFieldParent(parent) ? "value" : "group_id",
          { message },
          { shouldFocus: true },
        );
        toast.error(message);
      } else {
        form.setError("root", { message: problem.message });
        toast.error(problem.message);
      }
      return;
    }
    toast.success(
      ruleId
        ? `${noun[0]!.toUpperCase()}${noun.slice(1)} saved`
        : `${noun[0]!.toUpperCase()}${noun.slice(1)} created`,
    );
    await leave();
    await refreshAll();
  });

  const typeOptions = (types.data ?? RULE_TYPES).filter(
    (type): type is TRuleType => type in TYPE_DESCRIPTIONS,
  );

  return (
    <section>
      <Breadcrumbs
        crumbs={[...parentCrumbs(parentFixed ? parent : null, lookups), { label: title }]}
      />
      <header className="page-header">
        <div>
          <h1>{title}</h1>
          {parent && parentFixed && (
            <p className="lead">
              Attached to {label.attachedTo({ service_id: null, field_id: null, ...parent })}
            </p>
          )}
        </div>
      </header>
      {!writeRules && (
        <ReadOnlyNotice permission="writeRules">
          {ruleId
            ? `Your role can read this ${noun} but not change it.`
            : `Your role cannot create ${noun}s.`}
        </ReadOnlyNotice>
      )}
      <div className="form-layout">
        <form
          className="panel form"
          onSubmit={(event) => void submit(event)}
          noValidate
          aria-label={title}
        >
          {errors.root?.message && (
            <p className="alert error" role="alert">
              {errors.root.message}
            </p>
          )}
          <fieldset className="bare-fieldset" disabled={!writeRules}>
            {!parentFixed && (
              <FormField
                label="Attached to"
                required
                error={errors.parent?.message}
                hint="A service rule applies to every usage of the service; a field rule to usages with the given metadata."
              >
                {(a11y) => (
                  <select {...a11y} {...form.register("parent")} className="input">
                    <option value="">Choose a service or field…</option>
                    {lookups.services.map((service) => (
                      <optgroup key={service.service_id} label={service.name}>
                        <option value={`service:${service.service_id}`}>
                          {service.name} (service)
                        </option>
                        {lookups.fields
                          .filter((field) => field.service_id === service.service_id)
                          .map((field) => (
                            <option key={field.field_id} value={`field:${field.field_id}`}>
                              {service.name} › {field.name} (field)
                            </option>
                          ))}
                      </optgroup>
                    ))}
                  </select>
                )}
              </FormField>
            )}
            {kind === "mapping" && isFieldParent(parent) && (
              <FormField
                label="Value"
                required
                error={errors.value?.message}
                hint="The exact metadata value to match, compared as text (m1.small, ssd…)."
              >
                {(a11y) => (
                  <input
                    {...a11y}
                    {...form.register("value")}
                    className="input mono"
                    autoComplete="off"
                  />
                )}
              </FormField>
            )}
            {kind === "threshold" && (
              <FormField
                label="Level"
                required
                error={errors.level?.message}
                hint={
                  isFieldParent(parent)
                    ? "The rule applies when the field's numeric value is at least this level."
                    : "The rule applies when the quantity used is at least this level."
                }
              >
                {(a11y) => (
                  <input
                    {...a11y}
                    {...form.register("level")}
                    className="input mono"
                    inputMode="decimal"
                    autoComplete="off"
                  />
                )}
              </FormField>
            )}
            <fieldset className="form-field">
              <legend className="form-label">
                Type
                <span className="required" aria-hidden="true">
                  {" "}
                  *
                </span>
              </legend>
              <Controller
                control={form.control}
                name="type"
                render={({ field }) => (
                  <RadioGroup.Root
                    className="radio-cards horizontal"
                    value={field.value}
                    onValueChange={(value) => field.onChange(value)}
                    aria-label="Type"
                  >
                    {typeOptions.map((type) => (
                      <label key={type} className="radio-card">
                        <RadioGroup.Item
                          value={type}
                          className="radio"
                          aria-describedby={`type-${type}-text`}
                        >
                          <RadioGroup.Indicator className="radio-dot" />
                        </RadioGroup.Item>
                        <span>
                          <strong>{type === "flat" ? "Flat" : "Rate"}</strong>
                          <span id={`type-${type}-text`} className="radio-text">
                            {TYPE_DESCRIPTIONS[type]}
                          </span>
                        </span>
                      </label>
                    ))}
                  </RadioGroup.Root>
                )}
              />
            </fieldset>
            <FormField
              label="Cost"
              required
              error={errors.cost?.message}
              hint="An exact decimal, up to 12 integer and 28 fractional digits. It is stored as typed, never rounded."
            >
              {(a11y) => (
                <input
                  {...a11y}
                  {...form.register("cost")}
                  className="input mono"
                  inputMode="decimal"
                  autoComplete="off"
                />
              )}
            </FormField>
            <FormField
              label="Group"
              error={errors.group_id?.message}
              hint="Rules without a group are priced together in the default group."
            >
              {(a11y) => (
                <select {...a11y} {...form.register("group_id")} className="input">
                  <option value="">No group (default group)</option>
                  {lookups.groups.map((group) => (
                    <option key={group.group_id} value={group.group_id}>
                      {group.name}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
            <FormField
              label="Tenant"
              error={errors.tenant_id?.message}
              hint="Optional project id. Empty: the rule applies to every project. Set: it overrides the global rule for that project."
            >
              {(a11y) => (
                <input
                  {...a11y}
                  {...form.register("tenant_id")}
                  className="input mono"
                  autoComplete="off"
                  placeholder="All tenants"
                />
              )}
            </FormField>
          </fieldset>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => void leave()}>
              {writeRules ? "Cancel" : "Back"}
            </button>
            {writeRules && (
              <button type="submit" className="button primary" disabled={isSubmitting}>
                {isSubmitting ? "Saving…" : ruleId ? "Save changes" : `Create ${noun}`}
              </button>
            )}
          </div>
        </form>
        <aside className="form-help" aria-label="Help">
          {kind === "mapping" ? <MappingHelp /> : <ThresholdHelp />}
          <FlatRateHelp />
          <GroupHelp />
          <TenantHelp />
        </aside>
      </div>
    </section>
  );
}
