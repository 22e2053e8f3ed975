import { describe, expect, it } from "vitest";
import {
  applyBlockedReason,
  applyProgressRefresh,
  canKeepSecret,
  changeCount,
  connectionInput,
  describeApplyInProgress,
  describeConnection,
  describeCounts,
  describeDrift,
  describeModules,
  describeProbe,
  describeSummary,
  driftBadge,
  EMPTY_TARGET_FORM,
  groupPlan,
  runOperationRows,
  storedPlanOperations,
  targetFormValues,
  validateTargetForm,
  ZTargetSearch,
  type PlanOperation,
  type RunLike,
  type TargetConnection,
} from "./targets";

const APP_CREDENTIAL: TargetConnection = {
  kind: "keystone",
  auth_url: "http://keystone:5000/v3",
  region: "RegionOne",
  interface: "internal",
  credential: { kind: "application-credential", id: "ac-1" },
};
const PASSWORD: TargetConnection = {
  kind: "keystone",
  auth_url: "http://keystone:5000/v3",
  region: null,
  interface: "public",
  credential: {
    kind: "password",
    username: "rating",
    user_domain_name: "Default",
    project_name: "service",
    project_domain_name: "Default",
  },
};

describe("describeConnection", () => {
  it("names the URL, or Keystone with region, interface and who, never a secret", () => {
    expect(describeConnection({ kind: "noauth", url: "http://ck:8889" })).toBe(
      "http://ck:8889 (no authentication)",
    );
    expect(describeConnection(APP_CREDENTIAL)).toBe(
      "Keystone http://keystone:5000/v3 (RegionOne, internal), application credential ac-1",
    );
    expect(describeConnection(PASSWORD)).toBe(
      "Keystone http://keystone:5000/v3 (public), user rating in project service",
    );
  });
});

describe("the target form", () => {
  it("fills from a stored target with the secret empty, and keeps it only for the same kind", () => {
    const values = targetFormValues({
      name: "prod",
      mode: "managed",
      prune: true,
      push_scripts: true,
      push_modules: false,
      connection: APP_CREDENTIAL,
    });
    expect(values).toMatchObject({
      name: "prod",
      mode: "managed",
      prune: true,
      pushScripts: true,
      pushModules: false,
      kind: "keystone",
      authUrl: "http://keystone:5000/v3",
      region: "RegionOne",
      interface: "internal",
      credentialKind: "application-credential",
      credentialId: "ac-1",
      secret: "",
    });
    expect(canKeepSecret(APP_CREDENTIAL, values)).toBe(true);
    expect(canKeepSecret(APP_CREDENTIAL, { ...values, credentialKind: "password" })).toBe(false);
    expect(canKeepSecret(null, values)).toBe(false);
    expect(validateTargetForm(values, APP_CREDENTIAL)).toEqual({});
    expect(validateTargetForm(values, null)).toEqual({
      secret: "Enter the application credential's secret.",
    });
  });

  it("says which field is missing or wrong", () => {
    expect(validateTargetForm(EMPTY_TARGET_FORM, null)).toEqual({
      name: "Enter a name.",
      url: "Enter CloudKitty's http:// or https:// URL.",
    });
    expect(
      validateTargetForm(
        { ...EMPTY_TARGET_FORM, name: "x", kind: "keystone", credentialKind: "password" },
        null,
      ),
    ).toEqual({
      authUrl: "Enter Keystone's http:// or https:// URL, e.g. http://keystone:5000/v3.",
      username: "Enter the user name.",
      projectName: "Enter the project.",
      secret: "Enter the password.",
    });
    expect(
      validateTargetForm({ ...EMPTY_TARGET_FORM, name: "x", url: "ftp://ck" }, null).url,
    ).toBeDefined();
  });

  it("sends the connection in the API's shape, leaving an empty secret out", () => {
    expect(connectionInput({ ...EMPTY_TARGET_FORM, url: " http://ck:8889 " })).toEqual({
      kind: "noauth",
      url: "http://ck:8889",
    });
    const keystone = targetFormValues({
      name: "p",
      mode: "import-source",
      prune: false,
      push_scripts: false,
      push_modules: false,
      connection: PASSWORD,
    });
    expect(connectionInput(keystone)).toEqual({
      kind: "keystone",
      authUrl: "http://keystone:5000/v3",
      interface: "public",
      credential: {
        kind: "password",
        username: "rating",
        userDomainName: "Default",
        projectName: "service",
        projectDomainName: "Default",
      },
    });
    expect(
      connectionInput({
        ...keystone,
        credentialKind: "application-credential",
        credentialId: "ac",
        secret: "s3cret",
        region: "R",
      }),
    ).toEqual({
      kind: "keystone",
      authUrl: "http://keystone:5000/v3",
      region: "R",
      interface: "public",
      credential: { kind: "application-credential", id: "ac", secret: "s3cret" },
    });
  });
});

describe("probe reports", () => {
  it("says unreachable, refused, or the generation and modules", () => {
    expect(
      describeProbe({
        reachable: false,
        auth: "unknown",
        generation: "unknown",
        problem: "connection refused",
      }),
    ).toBe("unreachable: connection refused");
    expect(describeProbe({ reachable: true, auth: "refused", generation: "unknown" })).toBe(
      "authentication refused",
    );
    const modules = [
      { module_id: "pyscripts", enabled: false, priority: 0 },
      { module_id: "hashmap", enabled: true, priority: 1 },
    ];
    expect(describeModules(modules)).toBe("hashmap on (1), pyscripts off (0)");
    expect(describeProbe({ reachable: true, auth: "noauth", generation: "pre-23", modules })).toBe(
      "reachable, API generation before 23 (2025.2); modules hashmap on (1), pyscripts off (0)",
    );
  });
});

const op = (
  partial: Partial<PlanOperation> & Pick<PlanOperation, "op" | "kind" | "path">,
): PlanOperation => ({
  ratecard_id: null,
  target_id: null,
  before: null,
  after: null,
  ...partial,
});

describe("groupPlan", () => {
  const plan = [
    op({
      op: "update",
      kind: "mapping",
      path: "compute/flavor_name/mappings/m1.small",
      before: { parent: "compute/flavor_name", value: "m1.small", type: "flat", cost: "0.5" },
      after: { parent: "compute/flavor_name", value: "m1.small", type: "flat", cost: "0.75" },
      changes: ["cost"],
    }),
    op({
      op: "create",
      kind: "threshold",
      path: "volume.size/thresholds/10",
      after: {
        parent: "volume.size",
        level: "10",
        type: "rate",
        cost: "0.9",
        tenant_id: null,
        group: "disks",
      },
    }),
    op({ op: "create", kind: "group", path: "groups/disks", after: { name: "disks" } }),
    op({
      op: "module",
      kind: "module",
      path: "modules/hashmap",
      before: { enabled: false, priority: 1 },
      after: { enabled: true, priority: 1 },
      changes: ["enabled"],
    }),
    op({
      op: "unmanaged",
      kind: "mapping",
      path: "compute/flavor_name/mappings/m1.tiny",
      before: { parent: "compute/flavor_name", value: "m1.tiny", type: "flat", cost: "0.1" },
      reason: "exists only in CloudKitty (the target does not prune)",
    }),
    op({ op: "create", kind: "service", path: "volume.size", after: { name: "volume.size" } }),
  ];

  it("groups by service (modules and groups first), each line with before → after", () => {
    const groups = groupPlan(plan);
    expect(groups.map((g) => [g.section, g.heading, g.counts])).toEqual([
      ["modules", "Rating modules", { module: 1 }],
      ["groups", "Groups", { create: 1 }],
      ["service", "compute", { update: 1, unmanaged: 1 }],
      ["service", "volume.size", { create: 2 }],
    ]);
    const compute = groups[2]!;
    expect(compute.lines[0]).toMatchObject({
      op: "update",
      label: "flavor_name/mappings/m1.small",
      changes: [{ attribute: "cost", before: "0.5", after: "0.75" }],
    });
    expect(compute.lines[1]).toMatchObject({
      op: "unmanaged",
      changes: [
        { attribute: "type", before: "flat" },
        { attribute: "cost", before: "0.1" },
      ],
      reason: "exists only in CloudKitty (the target does not prune)",
    });
    const volume = groups[3]!;
    expect(volume.lines.map((line) => line.label)).toEqual([
      "thresholds/10",
      "(the service itself)",
    ]);
    expect(volume.lines[0]!.changes).toEqual([
      { attribute: "type", after: "rate" },
      { attribute: "cost", after: "0.9" },
      { attribute: "group", after: "disks" },
    ]);
    expect(groups[0]!.lines[0]!.changes).toEqual([
      { attribute: "enabled", before: "off", after: "on" },
    ]);
  });

  it("counts the changes apply would make, in words", () => {
    const counts = { create: 3, update: 1, replace: 0, delete: 0, module: 1, unmanaged: 2 };
    expect(changeCount(counts)).toBe(5);
    expect(describeCounts(counts)).toBe("3 creates, 1 update, 1 module, 2 unmanaged");
    expect(describeCounts({ create: 0 })).toBe("nothing");
  });

  it("counts a CloudKitty 23+ supersede as a change and a frozen line as reported only", () => {
    const counts = { create: 1, supersede: 2, frozen: 1 };
    expect(changeCount(counts)).toBe(3);
    expect(describeCounts(counts)).toBe("1 create, 2 supersedes, 1 frozen");
  });
});

describe("ZTargetSearch", () => {
  it("keeps a known tab and drops anything else", () => {
    expect(ZTargetSearch.parse({ tab: "plan" })).toEqual({ tab: "plan" });
    expect(ZTargetSearch.parse({ tab: "nope" })).toEqual({ tab: undefined });
  });
});

describe("runs", () => {
  const run = (partial: Partial<RunLike>): RunLike => ({
    kind: "drift",
    status: "ok",
    actor: "admin",
    ratecard_revision: "7",
    started_at: "2026-11-26T00:00:00.000Z",
    finished_at: "2026-11-26T00:00:01.000Z",
    summary: {},
    operation_count: 0,
    error: null,
    ...partial,
  });

  it("gives the drift badge from the last drift check", () => {
    expect(driftBadge(null)).toEqual({ tone: "unknown", text: "not checked" });
    expect(driftBadge(run({ status: "failed" }))).toEqual({
      tone: "unknown",
      text: "check failed",
    });
    expect(driftBadge(run({ summary: { counts: { missing: 0, changed: 0 } } }))).toEqual({
      tone: "clean",
      text: "no drift",
    });
    expect(driftBadge(run({ summary: { counts: { missing: 1, changed: 2 } } }))).toEqual({
      tone: "dirty",
      text: "3 differences",
    });
    expect(driftBadge(run({ operation_count: 1 }))).toEqual({
      tone: "dirty",
      text: "1 difference",
    });
  });

  it("describes a summary's counts and reads stored operations defensively", () => {
    expect(describeSummary({ counts: { create: 2, update: 0, delete: 1 }, other: "x" })).toBe(
      "2 create, 1 delete",
    );
    expect(describeSummary({})).toBe("nothing");
    expect(
      runOperationRows([
        {
          op: "update",
          kind: "mapping",
          path: "compute/m",
          status: 302,
          request_id: "req-1",
        },
        { kind: "changed", object_kind: "mapping", path: "compute/n" },
        null,
      ]),
    ).toEqual([
      {
        key: "0",
        op: "update",
        kind: "mapping",
        path: "compute/m",
        status: "302",
        requestId: "req-1",
        error: "",
      },
      {
        key: "1",
        op: "changed",
        kind: "mapping",
        path: "compute/n",
        status: "",
        requestId: "",
        error: "",
      },
      { key: "2", op: "", kind: "", path: "", status: "", requestId: "", error: "" },
    ]);
  });
});

describe("describeDrift", () => {
  it("names each kind of difference found, or none", () => {
    expect(describeDrift({ missing: 0, changed: 1, extra: 2 })).toBe(
      "1 changed, 2 only in CloudKitty",
    );
    expect(describeDrift({ missing: 0 })).toBe("no drift");
  });
});

describe("storedPlanOperations", () => {
  it("reads a plan run's operations back, and refuses what is not a plan's", () => {
    const stored = [
      {
        op: "update",
        kind: "mapping",
        path: "s/f/mappings/v",
        ratecard_id: "a",
        target_id: "b",
        before: { cost: "1" },
        after: { cost: "2" },
        changes: ["cost"],
      },
    ];
    expect(storedPlanOperations(stored)).toEqual(stored);
    expect(storedPlanOperations([{ kind: "changed", path: "x" }])).toBeNull();
  });
});

describe("an apply in progress", () => {
  const apply = {
    since: "2026-11-26T03:00:00.000Z",
    until: "2026-11-26T03:01:15.000Z",
    actor: "admin",
    plan_id: "6f0c2a9e-0000-4000-8000-000000000000",
    instance: "ratecard-2 pid 4181",
  };
  const iso = (value: string) => value;

  it("says since when and by whom", () => {
    expect(describeApplyInProgress(apply, iso)).toBe(
      "Applying since 2026-11-26T03:00:00.000Z by admin",
    );
    expect(describeApplyInProgress({ ...apply, actor: null }, iso)).toBe(
      "Applying since 2026-11-26T03:00:00.000Z by an unnamed caller",
    );
  });

  it("is the reason Apply is unavailable, naming the instance and plan", () => {
    expect(applyBlockedReason(null)).toBeNull();
    expect(applyBlockedReason(apply, iso)).toBe(
      "Applying since 2026-11-26T03:00:00.000Z by admin on ratecard-2 pid 4181 " +
        "(plan 6f0c2a9e-0000-4000-8000-000000000000). Another apply to this target waits " +
        "until it ends: then plan again, since CloudKitty will have changed.",
    );
    expect(applyBlockedReason({ ...apply, instance: null, plan_id: null }, iso)).toMatch(
      /^Applying since \S+ by admin\. Another apply/,
    );
  });

  it("formats the moment for people by default", () => {
    expect(describeApplyInProgress(apply)).toMatch(
      /^Applying since 26 Nov 2026, \d\d:\d\d by admin$/,
    );
  });

  it("reads the target again only while an apply is under way", () => {
    expect(applyProgressRefresh({ apply_in_progress: apply })).toBe(5000);
    expect(applyProgressRefresh({ apply_in_progress: null })).toBe(false);
    expect(applyProgressRefresh(undefined)).toBe(false);
  });
});
