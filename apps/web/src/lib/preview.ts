import { ZVolumeInput, type TPriceBreakdown } from "@ratecard/validators";
import { compareDecimals, trimDecimal } from "./decimal";
import type { SearchRecord } from "./search";

// The price preview: what the operator typed (form state), the query string that shares it, and the
// hashmap.preview request built from it. Values stay text end to end: metadata is compared as text
// by CloudKitty, and quantities and prices are exact decimals.

export type GroupBreakdown = TPriceBreakdown["groups"][number];
export type AppliedThreshold = NonNullable<GroupBreakdown["threshold"]>;

/** A metadata key the selected service has no field for: it prices nothing, but a script might read it. */
export interface MetadataRow {
  id: number;
  key: string;
  value: string;
}

export interface PreviewForm {
  /** The service's name, as usage points carry it; "" until chosen. */
  service: string;
  quantity: string;
  /** "" rates with the global rules only. */
  tenant: string;
  /** By field name; only the selected service's fields are sent, so switching services keeps shared ones. */
  fieldValues: Record<string, string>;
  extraRows: MetadataRow[];
  nextRowId: number;
  /** "Price as of", a `datetime-local` value in the browser's time zone; absent or "": now. */
  at?: string;
}

/** The API's input; metadata values are sent as the text typed. */
export interface PreviewRequest {
  service: string;
  volume: string;
  metadata: Record<string, string>;
  tenant_id?: string;
  /** The moment to price at (UTC ISO 8601); absent: now. */
  at?: string;
}

export interface PreviewErrors {
  quantity?: string;
  at?: string;
  /** By MetadataRow id. */
  rows: Record<number, string>;
}

/** `?service=volume&quantity=80&tenant=acme&meta.volume_type=ssd&at=2026-11-25T18:00:00.000Z` */
export type PreviewSearch = {
  service?: string | undefined;
  quantity?: string | undefined;
  tenant?: string | undefined;
  /** The moment priced, in UTC, so that a shared link means the same moment in every time zone. */
  at?: string | undefined;
  [metadataKey: `meta.${string}`]: string | undefined;
};

const META_PREFIX = "meta.";
const DEFAULT_QUANTITY = "1";

const textParam = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** Keeps the preview's own parameters, as text; anything else in the URL is dropped. */
export function parsePreviewSearch(raw: SearchRecord): PreviewSearch {
  const search: PreviewSearch = {
    service: textParam(raw.service),
    quantity: textParam(raw.quantity),
    tenant: textParam(raw.tenant),
    at: textParam(raw.at),
  };
  for (const [key, value] of Object.entries(raw)) {
    const text = textParam(value);
    if (key.startsWith(META_PREFIX) && key.length > META_PREFIX.length && text !== undefined) {
      search[key as `meta.${string}`] = text;
    }
  }
  return search;
}

/** The form a shared URL describes; metadata keys the service has fields for go to the field inputs. */
export function formFromSearch(search: PreviewSearch, fieldNames: readonly string[]): PreviewForm {
  const fieldValues: Record<string, string> = {};
  const extraRows: MetadataRow[] = [];
  for (const [param, value] of Object.entries(search)) {
    if (!param.startsWith(META_PREFIX) || value === undefined) continue;
    const key = param.slice(META_PREFIX.length);
    if (fieldNames.includes(key)) fieldValues[key] = value;
    else extraRows.push({ id: extraRows.length, key, value });
  }
  return {
    service: search.service ?? "",
    quantity: search.quantity ?? DEFAULT_QUANTITY,
    tenant: search.tenant ?? "",
    fieldValues,
    extraRows,
    nextRowId: extraRows.length,
    ...(search.at !== undefined && { at: localInputFromIso(search.at) }),
  };
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** A UTC moment as a `datetime-local` value in the browser's time zone, to the second ("" if invalid). */
export function localInputFromIso(iso: string): string {
  const moment = new Date(iso);
  if (Number.isNaN(moment.getTime())) return "";
  const date = `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}`;
  return `${date}T${pad(moment.getHours())}:${pad(moment.getMinutes())}:${pad(moment.getSeconds())}`;
}

/** A `datetime-local` value (the browser's time zone) as a UTC ISO moment; null when it is none. */
export function isoFromLocalInput(local: string): string | null {
  // Without an offset, a date and time is local time (ECMAScript's rule for this form).
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(local)) return null;
  const moment = new Date(local);
  return Number.isNaN(moment.getTime()) ? null : moment.toISOString();
}

/** The browser's time zone, to say which one the picker's moment is in. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A UTC moment as the operator reads it: their time zone, to the second. */
export function formatMoment(iso: string): string {
  const moment = new Date(iso);
  return Number.isNaN(moment.getTime())
    ? iso
    : moment.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

/** A rule's start or end as its API shows it (UTC without an offset) read as the moment it is. */
export function ruleMomentIso(text: string): string {
  return /[zZ]$|[+-]\d{2}:\d{2}$/.test(text) ? text : `${text}Z`;
}

function validQuantity(text: string): { volume: string } | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { error: "Enter a quantity, for example 80." };
  const parsed = ZVolumeInput.safeParse(trimmed);
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Not a decimal number." };
  return { volume: trimDecimal(parsed.data) };
}

/**
 * The metadata of the point: the selected service's fields that have a value, then the other keys.
 * An empty value leaves the key out (no field mapping can match "", and "" is no threshold level).
 */
function collectMetadata(form: PreviewForm, fieldNames: readonly string[]) {
  const entries: [string, string][] = [];
  const rowErrors: Record<number, string> = {};
  for (const name of fieldNames) {
    const value = form.fieldValues[name];
    if (value) entries.push([name, value]);
  }
  const seen = new Set<string>();
  for (const row of form.extraRows) {
    const key = row.key.trim();
    if (!key) {
      if (row.value) rowErrors[row.id] = "Enter the metadata key for this value.";
      continue;
    }
    if (fieldNames.includes(key))
      rowErrors[row.id] = `${key} is a field of this service: use its own input above.`;
    else if (seen.has(key)) rowErrors[row.id] = `${key} is already set in another row.`;
    seen.add(key);
    if (row.id in rowErrors || !row.value) continue;
    entries.push([key, row.value]);
  }
  return { metadata: Object.fromEntries(entries), rowErrors };
}

/** The hashmap.preview input, or null (with the reasons by input) while the form cannot be priced. */
export function buildPreviewRequest(
  form: PreviewForm,
  fieldNames: readonly string[],
): { request: PreviewRequest | null; errors: PreviewErrors } {
  const quantity = validQuantity(form.quantity);
  const { metadata, rowErrors } = collectMetadata(form, fieldNames);
  const atText = form.at?.trim() ?? "";
  const at = atText === "" ? undefined : isoFromLocalInput(atText);
  const errors: PreviewErrors = {
    rows: rowErrors,
    ...("error" in quantity && { quantity: quantity.error }),
    ...(at === null && { at: "Enter a date and time, for example 2026-11-25 18:00." }),
  };
  if (!form.service || "error" in quantity || at === null || Object.keys(rowErrors).length > 0)
    return { request: null, errors };
  const tenant = form.tenant.trim();
  return {
    request: {
      service: form.service,
      volume: quantity.volume,
      metadata,
      ...(tenant && { tenant_id: tenant }),
      ...(at !== undefined && { at }),
    },
    errors,
  };
}

/** What the URL keeps of the form: enough to reload or share the same preview. */
export function previewSearch(form: PreviewForm, fieldNames: readonly string[]): PreviewSearch {
  const search: PreviewSearch = {
    service: form.service || undefined,
    quantity: form.quantity.trim() || undefined,
    tenant: form.tenant.trim() || undefined,
    at: (form.at?.trim() && isoFromLocalInput(form.at.trim())) || undefined,
  };
  const { metadata } = collectMetadata(form, fieldNames);
  for (const [key, value] of Object.entries(metadata)) search[`${META_PREFIX}${key}`] = value;
  return search;
}

/** How CloudKitty computed a group's price, in symbols and with this point's numbers. */
export function groupFormula(
  group: GroupBreakdown,
  quantity: string,
): { symbols: string; numbers: string } {
  const { rate, flat, threshold, price } = group;
  const cost = threshold?.cost ?? "";
  const [symbols, numbers] =
    threshold === null
      ? ["rate × flat × quantity", `${rate} × ${flat} × ${quantity}`]
      : threshold.kind === "field"
        ? threshold.type === "flat"
          ? ["rate × (flat + threshold) × quantity", `${rate} × (${flat} + ${cost}) × ${quantity}`]
          : ["rate × threshold × flat × quantity", `${rate} × ${cost} × ${flat} × ${quantity}`]
        : threshold.type === "flat"
          ? ["rate × flat × quantity + threshold", `${rate} × ${flat} × ${quantity} + ${cost}`]
          : ["rate × flat × quantity × threshold", `${rate} × ${flat} × ${quantity} × ${cost}`];
  return { symbols, numbers: `${numbers} = ${price}` };
}

/** "multiplies the group's price by 0.95, after the quantity" */
export function thresholdEffect(threshold: AppliedThreshold): string {
  if (threshold.kind === "service") {
    return threshold.type === "flat"
      ? `adds ${threshold.cost} once, after the quantity (not per unit)`
      : `multiplies the group's price by ${threshold.cost}, after the quantity`;
  }
  return threshold.type === "flat"
    ? `adds ${threshold.cost} to the flat price per unit, before the quantity`
    : `multiplies the rate by ${threshold.cost}, before the quantity`;
}

/** "rate service threshold at level 200" / "flat field threshold on vcpus at level 4" */
export function describeThreshold(threshold: AppliedThreshold): string {
  const measured = threshold.kind === "field" ? ` on ${threshold.field_name ?? "a field"}` : "";
  return `${threshold.type} ${threshold.kind} threshold${measured} at level ${threshold.level}`;
}

/** The trap behind most surprising zeros: rates with nothing to multiply. */
export function pricesZeroForLackOfFlat(group: GroupBreakdown): boolean {
  const flatFromThreshold = group.threshold?.kind === "field" && group.threshold.type === "flat";
  return compareDecimals(group.flat, "0") === 0 && !flatFromThreshold;
}

/** Which rating modules change what CloudKitty charges for the usage previewed. */
export interface ModuleState {
  hashmapEnabled: boolean;
  /** Enabled with at least one script (or scripts that could not be counted): prices may change. */
  scriptsRun: boolean;
  /** How many scripts run, when known. */
  scripts: number | null;
}

/** Unknown (not allowed to read the modules, or still loading): nothing is said about them. */
export function moduleStateOf(
  modules: readonly { module_id: string; enabled: boolean }[] | undefined,
  scripts: number | null,
): ModuleState | null {
  if (!modules) return null;
  const enabled = (id: string) =>
    modules.some((module) => module.module_id === id && module.enabled);
  return {
    hashmapEnabled: enabled("hashmap"),
    scriptsRun: enabled("pyscripts") && scripts !== 0,
    scripts,
  };
}

/**
 * What CloudKitty charges, as far as the hashmap module decides it: the rules' total, or 0 while the
 * module is disabled (its rules then rate nothing).
 */
export function chargedByHashmap(total: string, modules: ModuleState | null): string {
  return modules && !modules.hashmapEnabled ? "0" : total;
}

const RULE_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * The rules a preview answer names, each once: the mappings and threshold each group applied, the
 * rules left out by their dates, and those its notes name by id. The page reads only these (and
 * their warnings), not every rule of the service.
 */
export function previewRuleIds(
  answer: Pick<TPriceBreakdown, "groups" | "warnings"> & { excluded?: { rule_id: string }[] },
): string[] {
  const ids = [
    ...answer.groups.flatMap((group) => [
      ...group.mapping_ids,
      ...(group.threshold ? [group.threshold.threshold_id] : []),
      ...group.warnings.flatMap((note) => note.match(RULE_ID) ?? []),
    ]),
    ...(answer.excluded ?? []).map((rule) => rule.rule_id),
    ...answer.warnings.flatMap((note) => note.match(RULE_ID) ?? []),
  ];
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}
