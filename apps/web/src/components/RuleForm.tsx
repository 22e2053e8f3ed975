import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useBlocker } from "@tanstack/react-router";
import { RadioGroup } from "radix-ui";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Controller, useForm, useWatch, type UseFormReturn } from "react-hook-form";
import { toast } from "sonner";
import { RULE_TYPES, ZGroupCreate, type TGroup, type TRuleType } from "@ratecard/validators";
import { useRefreshAll } from "../hooks";
import {
  conflictOf,
  diffValues,
  isConflict,
  type ConflictInfo,
  type FieldDifference,
} from "../lib/conflict";
import { describeProblem, isNotFound } from "../lib/errors";
import {
  decodeParent,
  formatApiMoment,
  isFieldParent,
  isPastLocal,
  lifecycleErrorField,
  mappingFormSchema,
  ruleFormTitle,
  ruleFormValues,
  thresholdFormSchema,
  type ExistingRule,
  type MappingInput,
  type RuleFormValues,
  type RuleParent,
  type ThresholdInput,
} from "../lib/rule-form";
import { browserStorage, rememberGroup } from "../lib/rule-list";
import { ruleLabeller, type RuleKind, type RuleLookups } from "../lib/rules";
import { ReadOnlyNotice, useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import { ConfirmDialog } from "./ConfirmDialog";
import { ConflictDialog, useConflictAuthor } from "./ConflictDialog";
import { FormField } from "./FormField";

type RuleInput = MappingInput | ThresholdInput;

const TYPE_DESCRIPTIONS: Record<TRuleType, string> = {
  flat: "A price per unit, multiplied by the quantity.",
  rate: "A multiplier of the group's flat price (0.9 = 10% off). Alone in a group it prices 0.",
};

/** The select's value that opens the inline "new group" input rather than choosing a group. */
const NEW_GROUP = "__new__";

export interface SavedRule {
  kind: RuleKind;
  id: string;
  parent: RuleParent | null;
}

/**
 * The mapping or threshold form, on its own page or in the side panel over a list. `heading`
 * renders the title (an h1 on the page, the dialog's title in the panel). After a save the form
 * calls `onSaved`; "Save and add another" (new rules only) keeps the parent, group, type and tenant,
 * clears the rest and starts again on the first field.
 */
export function RuleForm({
  kind,
  lookups,
  defaults,
  parentFixed,
  ruleId,
  revision,
  heading,
  lead,
  onSaved,
  onCancel,
  aside,
}: {
  kind: RuleKind;
  lookups: RuleLookups;
  defaults: RuleFormValues;
  parentFixed: boolean;
  ruleId?: string | undefined;
  /** The revision of the rule as read: every save sends it, so a change made meanwhile is not undone. */
  revision?: number | undefined;
  heading: (title: string) => ReactNode;
  lead?: (attachedTo: string) => ReactNode;
  onSaved: (saved: SavedRule) => unknown;
  /** Gets what the rule is attached to as the form shows it now. */
  onCancel: (parent: RuleParent | null) => unknown;
  aside?: ReactNode;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const { writeRules } = useCan();
  const types = useQuery(trpc.hashmap.types.list.queryOptions());
  const createMapping = useMutation(trpc.hashmap.mappings.create.mutationOptions());
  const updateMapping = useMutation(trpc.hashmap.mappings.update.mutationOptions());
  const createThreshold = useMutation(trpc.hashmap.thresholds.create.mutationOptions());
  const updateThreshold = useMutation(trpc.hashmap.thresholds.update.mutationOptions());
  // Editing, the schema knows the values read, so unchanged dates are not sent again.
  const resolver = useMemo(() => {
    const initial = ruleId ? defaults : undefined;
    return zodResolver(
      kind === "mapping" ? mappingFormSchema(initial) : thresholdFormSchema(initial),
    );
  }, [kind, ruleId, defaults]);
  const form = useForm<RuleFormValues, unknown, RuleInput>({ defaultValues: defaults, resolver });
  // Who created and changed the rule: the same query the page that opened the form made.
  const existing = useQuery({
    ...(kind === "mapping"
      ? trpc.hashmap.mappings.get.queryOptions({ mapping_id: ruleId ?? "" })
      : trpc.hashmap.thresholds.get.queryOptions({ threshold_id: ruleId ?? "" })),
    enabled: Boolean(ruleId),
  } as ReturnType<typeof trpc.hashmap.mappings.get.queryOptions>);
  // A soft-deleted rule opened by its address is history: shown, never edited.
  const known = existing.data as AuthoredRule | undefined;
  const deleted = ruleId ? known?.deleted : null;
  const deletion = deleted ? { at: deleted, by: known?.deleted_by } : null;
  const editable = writeRules && !deletion;
  const startValue = useWatch({ control: form.control, name: "start" });
  const startInPast = !ruleId && Boolean(startValue) && isPastLocal(startValue);
  const { errors, isSubmitting, isDirty } = form.formState;
  const parent = decodeParent(useWatch({ control: form.control, name: "parent" }));
  const label = useMemo(() => ruleLabeller(lookups), [lookups]);
  const noun = kind === "mapping" ? "mapping" : "threshold";
  const Noun = kind === "mapping" ? "Mapping" : "Threshold";
  const title = ruleFormTitle(kind, parent, Boolean(ruleId), writeRules);
  const [status, setStatus] = useState("");
  const [createdGroups, setCreatedGroups] = useState<TGroup[]>([]);
  const groups = useMemo(
    () => [
      ...lookups.groups,
      ...createdGroups.filter(
        (created) => !lookups.groups.some((group) => group.group_id === created.group_id),
      ),
    ],
    [lookups.groups, createdGroups],
  );
  const [addingGroup, setAddingGroup] = useState(false);
  const queryClient = useQueryClient();
  const conflictAuthor = useConflictAuthor();
  // The revision the next save expects: the one read, or the one seen when a conflict was shown.
  const revisionRef = useRef(revision);
  const [conflict, setConflict] = useState<{
    info: ConflictInfo;
    current: RuleFormValues & { revision: number | undefined };
    differences: FieldDifference[];
  } | null>(null);

  // Navigating away from typed changes asks first; a save clears the flag before it navigates.
  const savingRef = useRef(false);
  const dirtyRef = useRef(isDirty);
  useEffect(() => {
    dirtyRef.current = isDirty;
  }, [isDirty]);
  const blocker = useBlocker({
    shouldBlockFn: () => dirtyRef.current && !savingRef.current,
    enableBeforeUnload: () => dirtyRef.current && !savingRef.current,
    withResolver: true,
  });

  const firstFieldName = (values: RuleFormValues): keyof RuleFormValues => {
    const target = decodeParent(values.parent);
    if (!target) return "parent";
    if (kind === "threshold") return "level";
    return isFieldParent(target) ? "value" : "cost";
  };

  useEffect(() => {
    if (writeRules) form.setFocus(firstFieldName(form.getValues()));
    // Only when the form opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const save = (input: RuleInput): Promise<{ mapping_id: string } | { threshold_id: string }> => {
    // Only when the operator confirmed it, and only for a start that is still in the past.
    const values = form.getValues();
    const force = values.force && Boolean(values.start) && isPastLocal(values.start);
    if (kind === "mapping") {
      const mapping = input as MappingInput;
      return ruleId
        ? updateMapping.mutateAsync({
            ...mapping,
            mapping_id: ruleId,
            revision: revisionRef.current,
          })
        : createMapping.mutateAsync({ ...mapping, ...(force && { force: true }) });
    }
    const threshold = input as ThresholdInput;
    return ruleId
      ? updateThreshold.mutateAsync({
          ...threshold,
          threshold_id: ruleId,
          revision: revisionRef.current,
        })
      : createThreshold.mutateAsync({ ...threshold, ...(force && { force: true }) });
  };

  /** What the server holds now, and who changed it, against what the operator typed. */
  const showConflict = async (error: unknown, id: string) => {
    let current: ExistingRule;
    try {
      current =
        kind === "mapping"
          ? await queryClient.fetchQuery({
              ...trpc.hashmap.mappings.get.queryOptions({ mapping_id: id }),
              staleTime: 0,
              retry: false,
            })
          : await queryClient.fetchQuery({
              ...trpc.hashmap.thresholds.get.queryOptions({ threshold_id: id }),
              staleTime: 0,
              retry: false,
            });
    } catch (readError) {
      const message = isNotFound(readError)
        ? `This ${noun} was deleted since you opened it: there is nothing left to save to.`
        : describeProblem(readError).message;
      form.setError("root", { message });
      toast.error(message);
      return;
    }
    const info = await conflictAuthor(id, conflictOf(error));
    const server = ruleFormValues(current);
    const show = (key: keyof RuleFormValues, value: unknown): string => {
      const text = typeof value === "string" ? value.trim() : "";
      if (key === "group_id") return text ? label.groupName(text) : "(no group)";
      if (key === "tenant_id") return text || "(all tenants)";
      if (key === "parent") {
        const target = decodeParent(text);
        return target ? label.attachedTo({ service_id: null, field_id: null, ...target }) : "";
      }
      return text || "(none)";
    };
    const labels: Partial<Record<keyof RuleFormValues, string>> = {
      parent: "Attached to",
      ...(kind === "mapping" && isFieldParent(parent) ? { value: "Value" } : {}),
      ...(kind === "threshold" ? { level: "Level" } : {}),
      cost: "Cost",
      type: "Type",
      group_id: "Group",
      tenant_id: "Tenant",
    };
    setConflict({
      info,
      current: { ...server, revision: current.revision },
      differences: diffValues(server, form.getValues(), labels, show),
    });
  };

  const reloadCurrent = () => {
    if (!conflict) return;
    const { revision: currentRevision, ...values } = conflict.current;
    revisionRef.current = currentRevision;
    form.reset(values);
    form.clearErrors();
    setConflict(null);
    setStatus(`Loaded the current ${noun}; your changes were discarded.`);
    void refreshAll();
    setTimeout(() => form.setFocus(firstFieldName(values)));
  };

  const reapplyMine = () => {
    if (!conflict) return;
    revisionRef.current = conflict.current.revision;
    setConflict(null);
    void form.handleSubmit((input) => onValid(input, false))();
  };

  const onValid = async (input: RuleInput, addAnother: boolean) => {
    let saved: { mapping_id: string } | { threshold_id: string };
    try {
      saved = await save(input);
    } catch (error) {
      if (ruleId && isConflict(error)) {
        await showConflict(error, ruleId);
        return;
      }
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
        const dateField = lifecycleErrorField(problem.message);
        form.setError(dateField ?? "root", { message: problem.message }, { shouldFocus: true });
        toast.error(problem.message);
      }
      return;
    }
    const id = "mapping_id" in saved ? saved.mapping_id : saved.threshold_id;
    const values = form.getValues();
    if (!ruleId) rememberGroup(browserStorage(), values.group_id);
    const what =
      kind === "threshold"
        ? `${Noun} at level ${values.level.trim()}`
        : isFieldParent(parent)
          ? `${Noun} for “${values.value}”`
          : Noun;
    if (addAnother) {
      const next = { ...values, cost: "", value: "", level: "", name: "", description: "" };
      form.reset(next);
      setStatus(`${what} created. Enter the next one.`);
      toast.success(`${Noun} created`);
      // After the re-render that re-enables the form's buttons.
      setTimeout(() => form.setFocus(firstFieldName(next)));
      void refreshAll();
      return;
    }
    savingRef.current = true;
    form.reset(values);
    toast.success(ruleId ? `${Noun} saved` : `${Noun} created`);
    // The lists are fresh before the panel closes, so the saved row is found where it now sorts.
    await refreshAll();
    await onSaved({ kind, id, parent: decodeParent(values.parent) });
  };

  const typeOptions = (types.data ?? RULE_TYPES).filter(
    (type): type is TRuleType => type in TYPE_DESCRIPTIONS,
  );
  const groupField = form.register("group_id");

  return (
    <>
      {heading(title)}
      {parent &&
        parentFixed &&
        lead?.(label.attachedTo({ service_id: null, field_id: null, ...parent }))}
      {deletion && (
        <p className="alert note" role="note">
          <strong>Deleted.</strong> This {noun} was deleted
          {deletion.by ? ` by ${deletion.by}` : ""} on {formatApiMoment(deletion.at)}: it is kept as
          history and no longer prices anything.
        </p>
      )}
      {!writeRules && !deletion && (
        <ReadOnlyNotice permission="writeRules">
          {ruleId
            ? `Your role can read this ${noun} but not change it.`
            : `Your role cannot create ${noun}s.`}
        </ReadOnlyNotice>
      )}
      <div className={aside ? "form-layout" : "panel-body"}>
        <form
          className="panel form rule-form"
          onSubmit={(event) => void form.handleSubmit((input) => onValid(input, false))(event)}
          noValidate
          aria-label={title}
        >
          {errors.root?.message && (
            <p className="alert error" role="alert">
              {errors.root.message}
            </p>
          )}
          <p className="form-status" role="status">
            {status}
          </p>
          <fieldset className="bare-fieldset" disabled={!editable}>
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
            <FormField
              label="Cost"
              required
              error={errors.cost?.message}
              hint="An exact decimal, up to 12 integer and 28 fractional digits, stored as typed."
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
              label="Group"
              error={errors.group_id?.message}
              hint="Rules without a group are priced together in the default group."
            >
              {(a11y) => (
                <select
                  {...a11y}
                  {...groupField}
                  onChange={(event) => {
                    if (event.target.value === NEW_GROUP) {
                      // Keep the group chosen so far until the new one exists.
                      event.target.value = form.getValues("group_id");
                      setAddingGroup(true);
                      return;
                    }
                    void groupField.onChange(event);
                  }}
                  className="input"
                >
                  <option value="">No group (default group)</option>
                  {groups.map((group) => (
                    <option key={group.group_id} value={group.group_id}>
                      {group.name}
                    </option>
                  ))}
                  <option value={NEW_GROUP}>New group…</option>
                </select>
              )}
            </FormField>
            {addingGroup && (
              <NewGroupInput
                onCancel={() => {
                  setAddingGroup(false);
                  form.setFocus("group_id");
                }}
                onCreated={(group) => {
                  setCreatedGroups((known) => [...known, group]);
                  setAddingGroup(false);
                  // The option is rendered with the new group before the value is set.
                  setTimeout(() => {
                    form.setValue("group_id", group.group_id, { shouldDirty: true });
                    form.setFocus("group_id");
                  });
                }}
              />
            )}
            <FormField
              label="Tenant"
              error={errors.tenant_id?.message}
              hint="Optional project id. Empty: every project. Set: it overrides the global rule for that project."
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
            <LifecycleFields
              form={form}
              editing={Boolean(ruleId)}
              startInPast={startInPast}
              noun={noun}
            />
          </fieldset>
          {ruleId && existing.data ? <Authorship rule={existing.data} /> : null}
          <div className="form-actions sticky-actions">
            <button type="button" className="button" onClick={() => void onCancel(parent)}>
              {editable ? "Cancel" : "Back"}
            </button>
            {writeRules && !ruleId && (
              <button
                type="button"
                className="button"
                disabled={isSubmitting}
                onClick={() => void form.handleSubmit((input) => onValid(input, true))()}
              >
                Save and add another
              </button>
            )}
            {editable && (
              <button type="submit" className="button primary" disabled={isSubmitting}>
                {isSubmitting ? "Saving…" : ruleId ? "Save changes" : `Create ${noun}`}
              </button>
            )}
          </div>
        </form>
        {aside}
      </div>
      <ConfirmDialog
        open={blocker.status === "blocked"}
        onOpenChange={(open) => {
          if (!open) blocker.reset?.();
        }}
        title="Discard your changes?"
        confirmLabel="Discard changes"
        onConfirm={() => blocker.proceed?.()}
      >
        The {noun} has changes that are not saved. Leaving now loses them.
      </ConfirmDialog>
      <ConflictDialog
        open={conflict !== null}
        title={`This ${noun} was changed by someone else`}
        conflict={conflict?.info ?? null}
        differences={conflict?.differences ?? null}
        onReload={reloadCurrent}
        onReapply={reapplyMine}
        onClose={() => setConflict(null)}
      />
    </>
  );
}

/** Creates a group by name without leaving the rule form (the groups page's own mutation). */
function NewGroupInput({
  onCreated,
  onCancel,
}: {
  onCreated: (group: TGroup) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const createGroup = useMutation(trpc.hashmap.groups.create.mutationOptions());
  const [name, setName] = useState("");
  const [error, setError] = useState<string | undefined>();
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => inputRef.current?.focus(), []);

  const create = async () => {
    const parsed = ZGroupCreate.safeParse({ name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? "Enter a group name.");
      inputRef.current?.focus();
      return;
    }
    try {
      const group = await createGroup.mutateAsync(parsed.data);
      toast.success(`Group “${group.name}” created`);
      onCreated(group);
      void refreshAll();
    } catch (caught) {
      const problem = describeProblem(caught);
      setError(problem.fieldErrors.name ?? problem.message);
      inputRef.current?.focus();
    }
  };

  return (
    <FormField
      label="New group name"
      required
      error={error}
      hint="Enter creates the group and selects it; Escape cancels."
    >
      {(a11y) => (
        <div className="inline-create">
          <input
            {...a11y}
            ref={inputRef}
            className="input"
            autoComplete="off"
            value={name}
            onChange={(event) => setName(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                void create();
              } else if (event.key === "Escape") {
                // Closes this input, not the panel around the form.
                event.preventDefault();
                event.stopPropagation();
                onCancel();
              }
            }}
          />
          <button
            type="button"
            className="button"
            disabled={createGroup.isPending}
            onClick={() => void create()}
          >
            {createGroup.isPending ? "Creating…" : "Create group"}
          </button>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      )}
    </FormField>
  );
}

/** Name, description and validity period (CloudKitty master's rule lifecycle). */
function LifecycleFields({
  form,
  editing,
  startInPast,
  noun,
}: {
  form: UseFormReturn<RuleFormValues, unknown, RuleInput>;
  editing: boolean;
  startInPast: boolean;
  noun: string;
}) {
  const { errors } = form.formState;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // Folded unless the rule uses it, so the usual fields stay a few keystrokes apart.
  const [open, setOpen] = useState(() => {
    const values = form.getValues();
    return Boolean(
      values.description || values.end || (values.start && !isPastLocal(values.start)),
    );
  });
  const hasError = Boolean(errors.name ?? errors.description ?? errors.start ?? errors.end);
  return (
    <details
      className="form-field lifecycle-fields"
      open={open || hasError}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary className="form-label">Name, description and validity period</summary>
      <FormField
        label="Name"
        error={errors.name?.message}
        hint={`Optional, up to 32 characters. Empty: the server names the ${noun}.`}
      >
        {(a11y) => (
          <input {...a11y} {...form.register("name")} className="input" autoComplete="off" />
        )}
      </FormField>
      <FormField
        label="Description"
        error={errors.description?.message}
        hint="Optional, up to 256 characters: why this price exists."
      >
        {(a11y) => (
          <textarea {...a11y} {...form.register("description")} className="input" rows={2} />
        )}
      </FormField>
      <>
        <FormField
          label="Starts"
          error={errors.start?.message}
          hint={editing ? `Your time zone (${zone}).` : `Your time zone (${zone}). Empty: now.`}
        >
          {(a11y) => (
            <input {...a11y} {...form.register("start")} type="datetime-local" className="input" />
          )}
        </FormField>
        <FormField
          label="Ends"
          error={errors.end?.message}
          hint={`Your time zone (${zone}). Empty: never.`}
        >
          {(a11y) => (
            <input {...a11y} {...form.register("end")} type="datetime-local" className="input" />
          )}
        </FormField>
      </>
      {startInPast && (
        <div className="form-field">
          <p className="form-hint" id="start-in-past-hint">
            This start is in the past. The {noun} then counts from that moment for ratings not yet
            made; the server asks for confirmation.
          </p>
          <label className="filter-check">
            <input
              type="checkbox"
              {...form.register("force")}
              aria-describedby="start-in-past-hint"
            />
            <span>Start in the past</span>
          </label>
        </div>
      )}
    </details>
  );
}

interface AuthoredRule {
  created_at?: string | undefined;
  created_by?: string | null | undefined;
  updated_by?: string | null | undefined;
  deleted?: string | null | undefined;
  deleted_by?: string | null | undefined;
}

/** Who created and last changed a rule, and when (read only). */
function Authorship({ rule }: { rule: AuthoredRule }) {
  return (
    <dl className="form-hint authorship">
      <dt>Created</dt>
      <dd>
        {rule.created_at ? formatApiMoment(rule.created_at) : "—"}
        {rule.created_by && ` by ${rule.created_by}`}
      </dd>
      {rule.updated_by && (
        <>
          <dt>Last updated by</dt>
          <dd>{rule.updated_by}</dd>
        </>
      )}
    </dl>
  );
}
