import { keepPreviousData, skipToken, useQuery } from "@tanstack/react-query";
import { getRouteApi, Link, useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useId, useMemo, useState } from "react";
import type { TExcludedRule, TField, TPreviewAnswer } from "@ratecard/validators";
import { FlatRateHelp, GroupHelp, HelpBox, TenantHelp } from "../components/Concepts";
import { FormField } from "../components/FormField";
import { EditRuleInPlaceButton, InPlaceRuleEditor } from "../components/InPlaceRuleEditor";
import { WarningBadge } from "../components/RuleList";
import { ErrorPanel, QueryState } from "../components/QueryState";
import { useDebouncedValue, useLookups, useMappedValues, useNamedRules } from "../hooks";
import { describeProblem } from "../lib/errors";
import {
  browserTimeZone,
  buildPreviewRequest,
  chargedByHashmap,
  describeThreshold,
  formatMoment,
  formFromSearch,
  groupFormula,
  moduleStateOf,
  previewSearch,
  previewRuleIds,
  pricesZeroForLackOfFlat,
  ruleMomentIso,
  thresholdEffect,
  type GroupBreakdown,
  type ModuleState,
  type PreviewForm,
  type PreviewRequest,
  type PreviewSearch,
} from "../lib/preview";
import { describeRule, type RuleLookups, type RuleRow } from "../lib/rules";
import { stringifySearch } from "../lib/search";
import { nameRulesInText, warningBadgeOf, type RuleWarningBadge } from "../lib/warnings";
import { ReadOnlyUnless } from "../session/permissions";
import { useTRPC, useTRPCClient } from "../trpc";

const route = getRouteApi("/preview");

const fieldsOf = (lookups: RuleLookups, serviceName: string | undefined): TField[] => {
  const service = lookups.services.find((candidate) => candidate.name === serviceName);
  return service ? lookups.fields.filter((field) => field.service_id === service.service_id) : [];
};

export function PreviewPage() {
  const { lookups, isPending, error, refetch } = useLookups();
  const search = route.useSearch();
  const navigate = useNavigate({ from: "/preview" });
  // The form writes its state into the URL as the operator types; only a URL change that the form
  // did not write itself (a link, the navigation) starts the form again from the URL.
  const searchText = stringifySearch(search);
  const [seenSearch, setSeenSearch] = useState(searchText);
  const [writtenSearch, setWrittenSearch] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  if (searchText !== seenSearch) {
    setSeenSearch(searchText);
    if (searchText !== writtenSearch) setGeneration((count) => count + 1);
  }
  const writeSearch = useCallback(
    (next: PreviewSearch) => {
      const text = stringifySearch(next);
      setWrittenSearch(text);
      if (text !== searchText) void navigate({ search: next, replace: true });
    },
    [navigate, searchText],
  );

  return (
    // A rule the price names opens in a panel over the preview, which then prices again.
    <InPlaceRuleEditor>
      <section>
        <header className="page-header">
          <div>
            <p className="eyebrow">Hashmap</p>
            <h1>Price preview</h1>
            <p className="lead">
              Price one usage with the rules in force at a moment (now, unless you choose one), the
              way CloudKitty's hashmap module rates it, and see where the price comes from.
            </p>
          </div>
        </header>
        <ReadOnlyUnless permission="preview" />
        <QueryState query={{ data: lookups, error, isPending, isError: Boolean(error), refetch }}>
          {(loaded) => (
            <PreviewWorkbench
              key={generation}
              lookups={loaded}
              initialSearch={search}
              onSettled={writeSearch}
            />
          )}
        </QueryState>
      </section>
    </InPlaceRuleEditor>
  );
}

function PreviewWorkbench({
  lookups,
  initialSearch,
  onSettled,
}: {
  lookups: RuleLookups;
  initialSearch: PreviewSearch;
  onSettled: (search: PreviewSearch) => void;
}) {
  const trpc = useTRPC();
  const trpcClient = useTRPCClient();
  // The price depends on which modules CloudKitty runs; a role that may not read them sees the
  // rules' price alone, as before.
  const modules = useQuery(trpc.modules.list.queryOptions());
  const scripts = useQuery(trpc.pyscripts.scripts.list.queryOptions({ no_data: true }));
  const moduleState = moduleStateOf(modules.data?.modules, scripts.data?.scripts.length ?? null);
  const [form, setForm] = useState(() =>
    formFromSearch(
      initialSearch,
      fieldsOf(lookups, initialSearch.service).map((field) => field.name),
    ),
  );
  const update = (patch: Partial<PreviewForm>) =>
    setForm((previous) => ({ ...previous, ...patch }));

  // Inputs follow every keystroke; the request, the errors and the URL follow once typing pauses.
  const settled = useDebouncedValue(form);
  const settledFieldNames = useMemo(
    () => fieldsOf(lookups, settled.service).map((field) => field.name),
    [lookups, settled.service],
  );
  const { request, errors } = useMemo(
    () => buildPreviewRequest(settled, settledFieldNames),
    [settled, settledFieldNames],
  );
  useEffect(
    () => onSettled(previewSearch(settled, settledFieldNames)),
    [settled, settledFieldNames, onSettled],
  );

  const fields = useMemo(() => fieldsOf(lookups, form.service), [lookups, form.service]);
  const service = lookups.services.find((candidate) => candidate.name === form.service);

  // The data carries the request it answers, so that the previous price, kept on screen while the
  // next one loads, is never explained with the new quantity.
  const preview = useQuery({
    queryKey: ["price-preview", request],
    queryFn: request
      ? async () => ({ request, breakdown: await trpcClient.hashmap.preview.query(request) })
      : skipToken,
    placeholderData: keepPreviousData,
  });
  const serverErrors = preview.error ? describeProblem(preview.error).fieldErrors : {};
  const quantityError = errors.quantity ?? serverErrors.volume;
  const atError = errors.at ?? serverErrors.at;

  return (
    <div className="preview-layout">
      <form
        className="panel form"
        aria-label="Usage to price"
        onSubmit={(event) => event.preventDefault()}
        noValidate
      >
        <FormField label="Service" required hint="The rated metric, as its usage points name it.">
          {(a11y) => (
            <select
              {...a11y}
              className="input"
              value={form.service}
              onChange={(event) => update({ service: event.target.value })}
            >
              <option value="" disabled>
                Choose a service
              </option>
              {lookups.services.map((candidate) => (
                <option key={candidate.service_id} value={candidate.name}>
                  {candidate.name}
                </option>
              ))}
              {form.service && !service && (
                <option value={form.service}>{form.service} (no such service)</option>
              )}
            </select>
          )}
        </FormField>
        <FormField
          label="Quantity"
          required
          error={quantityError}
          hint="In the service's unit (GiB, hours, instances…), as an exact decimal."
        >
          {(a11y) => (
            <input
              {...a11y}
              className="input mono"
              inputMode="decimal"
              autoComplete="off"
              value={form.quantity}
              onChange={(event) => update({ quantity: event.target.value })}
            />
          )}
        </FormField>
        <FormField
          label="Tenant"
          hint="A project id: its own rules replace the global ones in the same place. Leave empty to price with the global rules only, as CloudKitty's quote does."
        >
          {(a11y) => (
            <input
              {...a11y}
              className="input mono"
              autoComplete="off"
              placeholder="All tenants"
              value={form.tenant}
              onChange={(event) => update({ tenant: event.target.value })}
            />
          )}
        </FormField>
        <FormField
          label="Price as of"
          error={atError}
          hint={`Empty: now. A past moment prices with the rules as they stood then, rebuilt from the change history; a later one with the rules scheduled for it. Your time zone (${browserTimeZone()}).`}
        >
          {(a11y) => (
            <div style={{ display: "flex", gap: "0.5rem", alignItems: "center" }}>
              <input
                {...a11y}
                type="datetime-local"
                step={1}
                className="input mono"
                value={form.at ?? ""}
                onChange={(event) => update({ at: event.target.value })}
              />
              <button
                type="button"
                className="button small"
                disabled={!form.at}
                onClick={() => update({ at: "" })}
              >
                Now
              </button>
            </div>
          )}
        </FormField>
        <MetadataInputs form={form} fields={fields} rowErrors={errors.rows} onChange={setForm} />
        <div className="help-row">
          <TenantHelp />
          <FlatRateHelp />
          <GroupHelp />
        </div>
      </form>
      <PriceResult
        serviceChosen={Boolean(form.service)}
        inputValid={request !== null && !serverErrors.volume && !serverErrors.at}
        preview={preview}
        modules={moduleState}
      />
    </div>
  );
}

function MetadataInputs({
  form,
  fields,
  rowErrors,
  onChange,
}: {
  form: PreviewForm;
  fields: TField[];
  rowErrors: Record<number, string>;
  onChange: (update: (previous: PreviewForm) => PreviewForm) => void;
}) {
  const baseId = useId();
  const fieldIds = useMemo(() => fields.map((field) => field.field_id), [fields]);
  const mappedValues = useMappedValues(fieldIds);
  const setFieldValue = (name: string, value: string) =>
    onChange((previous) => ({
      ...previous,
      fieldValues: { ...previous.fieldValues, [name]: value },
    }));
  const setRow = (id: number, patch: { key?: string; value?: string }) =>
    onChange((previous) => ({
      ...previous,
      extraRows: previous.extraRows.map((row) => (row.id === id ? { ...row, ...patch } : row)),
    }));
  const addRow = () =>
    onChange((previous) => ({
      ...previous,
      extraRows: [...previous.extraRows, { id: previous.nextRowId, key: "", value: "" }],
      nextRowId: previous.nextRowId + 1,
    }));
  const removeRow = (id: number) =>
    onChange((previous) => ({
      ...previous,
      extraRows: previous.extraRows.filter((row) => row.id !== id),
    }));

  return (
    <fieldset className="form-field metadata">
      <legend className="form-label">Metadata</legend>
      <p className="form-hint">
        Field mappings match a value exactly, as text (“1” and “1.0” differ); field thresholds read
        it as a number. An empty value leaves the key out.
      </p>
      {form.service && fields.length === 0 && (
        <p className="muted">This service has no fields: metadata does not change its price.</p>
      )}
      {fields.map((field, index) => {
        const mapped = mappedValues[index];
        const values = mapped?.values ?? [];
        const more = values.length > 8 || Boolean(mapped?.more);
        const listId = `${baseId}-${field.field_id}`;
        return (
          <FormField
            key={field.field_id}
            label={field.name}
            hint={
              values.length > 0
                ? `Mapped values: ${values.slice(0, 8).join(", ")}${more ? ", …" : ""}`
                : "No mapping for this field yet."
            }
          >
            {(a11y) => (
              <>
                <input
                  {...a11y}
                  className="input mono"
                  autoComplete="off"
                  list={listId}
                  value={form.fieldValues[field.name] ?? ""}
                  onChange={(event) => setFieldValue(field.name, event.target.value)}
                />
                <datalist id={listId}>
                  {values.map((value) => (
                    <option key={value} value={value} />
                  ))}
                </datalist>
              </>
            )}
          </FormField>
        );
      })}
      {form.extraRows.length > 0 && (
        <p className="subheading">Other metadata (no field of this service)</p>
      )}
      {form.extraRows.length > 0 && (
        <ul className="metadata-rows" aria-label="Other metadata">
          {form.extraRows.map((row, index) => {
            const errorId = `${baseId}-row-${row.id}-error`;
            const error = rowErrors[row.id];
            const described = error ? { "aria-describedby": errorId } : {};
            const name = row.key.trim() || `row ${index + 1}`;
            return (
              <li key={row.id} className="metadata-row">
                <input
                  className="input mono"
                  aria-label={`Key of metadata row ${index + 1}`}
                  aria-invalid={Boolean(error)}
                  {...described}
                  placeholder="key"
                  autoComplete="off"
                  value={row.key}
                  onChange={(event) => setRow(row.id, { key: event.target.value })}
                />
                <input
                  className="input mono"
                  aria-label={`Value of metadata row ${index + 1}`}
                  placeholder="value"
                  autoComplete="off"
                  value={row.value}
                  onChange={(event) => setRow(row.id, { value: event.target.value })}
                />
                <button
                  type="button"
                  className="button small"
                  aria-label={`Remove metadata ${name}`}
                  onClick={() => removeRow(row.id)}
                >
                  Remove
                </button>
                {error && (
                  <p id={errorId} className="form-error">
                    {error}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <div>
        <button type="button" className="button small" onClick={addRow}>
          Add other metadata
        </button>
      </div>
    </fieldset>
  );
}

interface PreviewQuery {
  data: { request: PreviewRequest; breakdown: TPreviewAnswer } | undefined;
  error: unknown;
  isError: boolean;
  isFetching: boolean;
  isPlaceholderData: boolean;
  refetch: () => unknown;
}

function PriceResult({
  serviceChosen,
  inputValid,
  preview,
  modules: presentModules,
}: {
  serviceChosen: boolean;
  inputValid: boolean;
  preview: PreviewQuery;
  modules: ModuleState | null;
}) {
  const headingId = useId();
  const shown = preview.data;
  const named = useMemo(() => (shown ? previewRuleIds(shown.breakdown) : []), [shown]);
  const rulesById = useNamedRules(named);
  // The warnings are about today's rules: shown on a price of now, not of another moment.
  const badges = useMemo(() => {
    const byRule = new Map<string, RuleWarningBadge>();
    for (const row of rulesById.values()) {
      const badge = warningBadgeOf(row.warnings);
      if (badge) byRule.set(row.id, badge);
    }
    return byRule;
  }, [rulesById]);
  const stale = !inputValid || preview.isPlaceholderData;
  // At a chosen moment, whether hashmap ran is the moment's, not today's.
  const modules =
    presentModules && shown?.request.at !== undefined
      ? { ...presentModules, hashmapEnabled: shown.breakdown.hashmap_enabled }
      : presentModules;
  return (
    <section
      className="panel preview-result"
      aria-labelledby={headingId}
      aria-busy={preview.isFetching}
    >
      <h2 id={headingId} className="section-title">
        Price
      </h2>
      {!serviceChosen ? (
        <p className="muted">Choose a service to see the price of a usage.</p>
      ) : preview.isError && inputValid ? (
        <ErrorPanel
          error={preview.error}
          onRetry={() => void preview.refetch()}
          title="The price could not be computed"
        />
      ) : !shown ? (
        <p className="muted">
          {inputValid ? "Pricing…" : "Correct the highlighted input to see the price."}
        </p>
      ) : (
        <div className={stale ? "breakdown stale" : "breakdown"}>
          {modules && !modules.hashmapEnabled ? (
            <>
              <div className="total-row">
                <span className="total-label">Charged by CloudKitty</span>
                <output className="total mono" aria-label="Price charged by CloudKitty">
                  {chargedByHashmap(shown.breakdown.total, modules)}
                </output>
              </div>
              <div className="total-row not-charged">
                <span className="total-label">Price of the hashmap rules, once enabled</span>
                <output className="total mono" aria-label="Total price">
                  {shown.breakdown.total}
                </output>
              </div>
              <p className="alert note" role="note">
                <strong>The hashmap module is disabled:</strong> CloudKitty charges 0 for this usage
                {modules.scriptsRun ? ", unless a script prices it" : ""}. Its rules, broken down
                below, apply again once it is enabled in <Link to="/modules">Rating modules</Link>.
              </p>
            </>
          ) : (
            <div className="total-row">
              <span className="total-label">Total</span>
              <output className="total mono" aria-label="Total price">
                {shown.breakdown.total}
              </output>
            </div>
          )}
          {modules?.scriptsRun && (
            <p className="alert note" role="note">
              <strong>The pyscripts module is enabled:</strong> CloudKitty also runs{" "}
              <Link to="/pyscripts">
                {modules.scripts === null
                  ? "its scripts"
                  : `${modules.scripts} script${modules.scripts === 1 ? "" : "s"}`}
              </Link>
              , which may change this price. The price shown excludes the scripts.
            </p>
          )}
          <p className="muted">
            Quantity {shown.request.volume} of {shown.breakdown.service},{" "}
            {shown.breakdown.tenant
              ? `for tenant ${shown.breakdown.tenant}`
              : "with the global rules (no tenant)"}
            .
            {!inputValid &&
              " This is the price of the last valid input: correct the highlighted input to update it."}
          </p>
          {shown.request.at !== undefined && <MomentNote answer={shown.breakdown} />}
          {!shown.breakdown.service_known && (
            <p className="alert note">
              No hashmap service is named {shown.breakdown.service}: CloudKitty prices its usage 0.
            </p>
          )}
          {shown.breakdown.warnings.length > 0 && (
            <div className="callout warning" role="status" aria-label="Notes on this usage">
              <p className="callout-title">Notes on this usage</p>
              <ul>
                {shown.breakdown.warnings.map((warning, index) => (
                  <li key={index}>{nameRulesInText(warning, rulesById)}</li>
                ))}
              </ul>
            </div>
          )}
          {shown.breakdown.service_known && shown.breakdown.groups.length === 0 && (
            <p className="muted">No rule of this service applies to this usage: it prices 0.</p>
          )}
          {shown.breakdown.groups.map((group) => (
            <GroupPrice
              key={group.group_name}
              group={group}
              quantity={shown.request.volume}
              rulesById={rulesById}
              badges={shown.request.at === undefined ? badges : NO_BADGES}
            />
          ))}
          {shown.breakdown.excluded.length > 0 && (
            <ExcludedRules excluded={shown.breakdown.excluded} rulesById={rulesById} />
          )}
        </div>
      )}
      <PricingHelp />
    </section>
  );
}

/**
 * Which rules a price at a chosen moment was computed with. The server says: rebuilt (a past moment
 * before the last change), no event (a moment not in the past: today's rules), or an event and not
 * rebuilt (a past moment after the last change).
 */
function MomentNote({ answer }: { answer: TPreviewAnswer }) {
  const when = <time dateTime={answer.at}>{formatMoment(answer.at)}</time>;
  return (
    <p className="alert note" role="note" aria-label="Moment priced">
      {answer.reconstructed ? (
        <>
          <strong>Priced as of {when}</strong>, with the rules as they stood then, rebuilt from the{" "}
          <Link to="/activity">change history</Link>
          {answer.event_id !== null ? ` (up to change #${answer.event_id})` : ""}. Rules changed or
          deleted since are shown as they were; the links below show them as they are now.
        </>
      ) : answer.event_id === null ? (
        <>
          <strong>Priced as of {when}</strong>, with today's rules in force at that moment: rules
          scheduled to start by then count, rules ended by then do not.
        </>
      ) : (
        <>
          <strong>Priced as of {when}</strong>: no rule has changed since, so these are today's
          rules in force at that moment.
        </>
      )}
    </p>
  );
}

function ExcludedRules({
  excluded,
  rulesById,
}: {
  excluded: readonly TExcludedRule[];
  rulesById: ReadonlyMap<string, RuleRow>;
}) {
  const headingId = useId();
  const period = (rule: TExcludedRule) => {
    if (rule.reason === "not_started" && rule.start)
      return `starts ${formatMoment(ruleMomentIso(rule.start))}`;
    if (rule.reason === "ended" && rule.end)
      return `ended ${formatMoment(ruleMomentIso(rule.end))}`;
    return rule.reason === "ended" ? "ended" : "not started";
  };
  return (
    <section className="excluded-rules" aria-labelledby={headingId}>
      <p className="subheading" id={headingId}>
        Not in force at this moment ({excluded.length})
      </p>
      <p className="muted">These rules of the service are left out by their start or end date.</p>
      <ul aria-labelledby={headingId}>
        {excluded.map((rule) => {
          const row = rulesById.get(rule.rule_id);
          const label = row ? describeRule(row) : `${rule.kind} ${rule.rule_id}`;
          return (
            <li key={rule.rule_id}>
              {rule.kind === "mapping" ? (
                <Link to="/hashmap/mappings/$ruleId" params={{ ruleId: rule.rule_id }}>
                  {label}
                </Link>
              ) : (
                <Link to="/hashmap/thresholds/$ruleId" params={{ ruleId: rule.rule_id }}>
                  {label}
                </Link>
              )}{" "}
              <span className="muted">({period(rule)})</span>
              <EditRuleInPlaceButton kind={rule.kind} ruleId={rule.rule_id} description={label} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

const NO_BADGES: ReadonlyMap<string, RuleWarningBadge> = new Map();

function GroupPrice({
  group,
  quantity,
  rulesById,
  badges,
}: {
  group: GroupBreakdown;
  quantity: string;
  rulesById: ReadonlyMap<string, RuleRow>;
  badges: ReadonlyMap<string, RuleWarningBadge>;
}) {
  const headingId = useId();
  const formula = groupFormula(group, quantity);
  return (
    <section className="group-price" aria-labelledby={headingId}>
      <header className="group-price-header">
        <h3 id={headingId}>
          {group.group_id ? (
            <>
              Group{" "}
              <Link to="/hashmap/groups/$groupId" params={{ groupId: group.group_id }}>
                {group.group_name}
              </Link>
            </>
          ) : (
            "Default group"
          )}
        </h3>
        <span className="group-price-value mono">{group.price}</span>
      </header>
      <dl className="breakdown-values">
        <div>
          <dt>Flat</dt>
          <dd>
            <span className="mono">{group.flat}</span>{" "}
            <span className="muted">price per unit: the highest matching flat mapping</span>
          </dd>
        </div>
        <div>
          <dt>Rate</dt>
          <dd>
            <span className="mono">{group.rate}</span>{" "}
            <span className="muted">the matching rate mappings multiplied together</span>
          </dd>
        </div>
        <div>
          <dt>Threshold</dt>
          <dd>
            {group.threshold ? (
              <>
                <Link
                  to="/hashmap/thresholds/$ruleId"
                  params={{ ruleId: group.threshold.threshold_id }}
                >
                  {describeThreshold(group.threshold)}
                </Link>
                , cost <span className="mono">{group.threshold.cost}</span>:{" "}
                {thresholdEffect(group.threshold)}
                <EditRuleInPlaceButton
                  kind="threshold"
                  ruleId={group.threshold.threshold_id}
                  description={describeThreshold(group.threshold)}
                />
                <RuleBadge badge={badges.get(group.threshold.threshold_id)} />
              </>
            ) : (
              <span className="muted">none reached</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Price</dt>
          <dd>
            <span className="muted">{formula.symbols}</span>
            <br />
            <span className="mono">{formula.numbers}</span>
          </dd>
        </div>
      </dl>
      {pricesZeroForLackOfFlat(group) && (
        <p className="note">
          No flat price matched in this group, so its rates have nothing to multiply.
        </p>
      )}
      <p className="subheading">Matching mappings</p>
      {group.mapping_ids.length === 0 ? (
        <p className="muted">None: only a threshold applies in this group.</p>
      ) : (
        <ul
          className="matched-rules"
          aria-label={`Matching mappings of ${group.group_id ? `group ${group.group_name}` : "the default group"}`}
        >
          {group.mapping_ids.map((id) => (
            <li key={id}>
              <MatchedMapping id={id} row={rulesById.get(id)} />
              <RuleBadge badge={badges.get(id)} />
            </li>
          ))}
        </ul>
      )}
      {group.warnings.length > 0 && (
        <div className="note">
          <p className="subheading">Rules replaced or beaten in this group</p>
          <ul className="group-notes">
            {group.warnings.map((warning, index) => (
              <li key={index}>{nameRulesInText(warning, rulesById)}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/** A matched rule's pricing warnings, linking to them on the service page. */
function RuleBadge({ badge }: { badge: RuleWarningBadge | undefined }) {
  if (!badge) return null;
  return (
    <>
      {" "}
      <WarningBadge badge={badge} panel="service page" />
    </>
  );
}

function MatchedMapping({ id, row }: { id: string; row: RuleRow | undefined }) {
  return (
    <>
      <Link to="/hashmap/mappings/$ruleId" params={{ ruleId: id }}>
        {row ? describeRule(row) : `mapping ${id}`}
      </Link>
      {row && (
        <span className="muted">
          {" "}
          ({row.type} <span className="mono">{row.cost}</span>)
        </span>
      )}
      <EditRuleInPlaceButton
        kind="mapping"
        ruleId={id}
        description={row ? describeRule(row) : `mapping ${id}`}
      />
    </>
  );
}

function PricingHelp() {
  return (
    <HelpBox summary="How is this price computed?">
      <ol>
        <li>
          Each group starts with a flat price of 0 and a rate of 1. The matching mappings set them:
          the highest matching flat mapping is the flat price per unit (flats in one group do not
          add up), and the matching rate mappings multiply the rate.
        </li>
        <li>
          In each group only one threshold applies: the highest level reached. A service threshold
          compares the quantity, a field threshold the metadata value.
        </li>
        <li>
          A field threshold applies before the quantity: a flat one adds to the flat price, a rate
          one multiplies the rate. Then the group's price is <strong>rate × flat × quantity</strong>
          . A service threshold applies after the quantity: a flat one adds its cost once, a rate
          one multiplies the price.
        </li>
        <li>The prices of all groups add up to the total.</li>
        <li>
          A tenant's rules are loaded after the global ones and replace them where they take the
          same place: the same service mapping, field value or threshold level in the same group.
        </li>
      </ol>
      <p>
        Example: a flat 0.001 per GiB with rate thresholds 50 → 0.98 and 200 → 0.95 prices 20 GiB at
        0.02, 50 GiB at 0.049, 80 GiB at 0.0784 and 250 GiB at 0.2375.
      </p>
    </HelpBox>
  );
}
