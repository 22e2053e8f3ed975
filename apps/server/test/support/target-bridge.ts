import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "vitest";
import type { Client } from "./client.js";

// Helpers of the target apply/drift suites: a target registered in Ratecard, plan + apply through
// Ratecard's REST, and CloudKitty's own state read straight from its REST (never through Ratecard),
// so that what the tests assert about CloudKitty is what CloudKitty says.

export const TARGETS = "/v1/ratecard/targets";
const CK_HASHMAP = "/v1/rating/module_config/hashmap";
const run = promisify(execFile);

export async function registerTarget(
  api: Client,
  url: string,
  options: { name?: string; prune?: boolean } = {},
): Promise<string> {
  const answer = await api.post(TARGETS, {
    name: options.name ?? "local",
    mode: "managed",
    prune: options.prune ?? false,
    connection: { kind: "noauth", url },
  });
  expect(answer.status, answer.text).toBe(201);
  const id = answer.body.target_id as string;
  expect((await api.post(`${TARGETS}/${id}/probe`, {})).status).toBe(200);
  return id;
}

/** Plans and applies; answers the apply's answer (status not checked: faults make it partial). */
export async function planAndApply(api: Client, targetId: string) {
  const plan = await api.post(`${TARGETS}/${targetId}/plan`, {});
  expect(plan.status, plan.text).toBe(200);
  expect(plan.body.plan_id, plan.text).toEqual(expect.any(String));
  const apply = await api.post(`${TARGETS}/${targetId}/apply`, { plan_id: plan.body.plan_id });
  return { plan, apply };
}

export async function drift(api: Client, targetId: string) {
  const answer = await api.get(`${TARGETS}/${targetId}/drift`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** `cloudkitty` CLI commands that print nothing (deletes): run, output ignored. */
export async function cliQuiet(url: string, ...args: string[]): Promise<void> {
  await run("cloudkitty", ["--os-auth-type", "cloudkitty-noauth", "--os-endpoint", url, ...args], {
    timeout: 60_000,
  });
}

interface CkRule {
  kind: "mapping" | "threshold";
  id: string;
  parent: string;
  key: string | null;
  tenant_id: string | null;
  group_id: string | null;
  type: string;
  cost: string;
}

export interface CloudKittyState {
  groups: { group_id: string; name: string }[];
  services: { service_id: string; name: string }[];
  fields: { field_id: string; name: string; service: string }[];
  rules: CkRule[];
}

/** Everything hashmap holds, read through CloudKitty's REST (walking the tree, as 17 needs). */
export async function readCloudKitty(url: string): Promise<CloudKittyState> {
  const get = async (path: string) => {
    const response = await fetch(`${url}${CK_HASHMAP}${path}`);
    expect(response.status, path).toBe(200);
    return (await response.json()) as any;
  };
  const state: CloudKittyState = { groups: [], services: [], fields: [], rules: [] };
  state.groups = (await get("/groups")).groups;
  state.services = (await get("/services")).services;
  const rulesOf = async (parent: string, query: string) => {
    for (const m of (await get(`/mappings?${query}`)).mappings)
      state.rules.push({
        kind: "mapping",
        id: m.mapping_id,
        parent,
        key: m.value || null,
        tenant_id: m.tenant_id,
        group_id: m.group_id,
        type: m.type,
        cost: m.cost,
      });
    for (const t of (await get(`/thresholds?${query}`)).thresholds)
      state.rules.push({
        kind: "threshold",
        id: t.threshold_id,
        parent,
        key: String(Number(t.level)),
        tenant_id: t.tenant_id,
        group_id: t.group_id,
        type: t.type,
        cost: t.cost,
      });
  };
  for (const service of state.services) {
    await rulesOf(service.name, `service_id=${service.service_id}`);
    for (const field of (await get(`/fields?service_id=${service.service_id}`)).fields) {
      state.fields.push({ field_id: field.field_id, name: field.name, service: service.name });
      await rulesOf(`${service.name}/${field.name}`, `field_id=${field.field_id}`);
    }
  }
  return state;
}

/** Objects CloudKitty holds more than once (same name; same parent, value or level, tenant, group). */
export function duplicatesIn(state: CloudKittyState): string[] {
  const keys = [
    ...state.groups.map((g) => `group ${g.name}`),
    ...state.services.map((s) => `service ${s.name}`),
    ...state.fields.map((f) => `field ${f.service}/${f.name}`),
    ...state.rules.map((r) =>
      [r.kind, r.parent, r.key, r.tenant_id, r.group_id].map(String).join(" "),
    ),
  ];
  const seen = new Map<string, number>();
  for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} (${n} times)`);
}
