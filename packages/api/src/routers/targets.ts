import { z } from "zod";
import { ZPathId, ZQueryInteger } from "@ratecard/validators";
import {
  createTarget,
  deleteTarget,
  getTarget,
  importTarget,
  listTargets,
  probeTarget,
  TARGET_MODES,
  updateTarget,
} from "../domain/targets.js";
import { applyTargetRules, planTargetRules } from "../domain/target-apply.js";
import { APPLY_OUTCOMES, TARGET_PLAN_OPS } from "@ratecard/bridge";
import { withTargetApplyLease } from "../domain/target-lock.js";
import {
  getRun,
  listRuns,
  runActor,
  TARGET_RUN_KINDS,
  TARGET_RUN_STATUSES,
} from "../domain/target-runs.js";
import { publicProcedure, router } from "../trpc.js";
import { created, deleted } from "./rest.js";
import { auditOf } from "./revisions.js";

// CloudKitty targets (issue 14): the deployments Ratecard imports from or applies to, on
// Ratecard's own path, over REST and RPC. Policy: ratecard:manage_targets (admins) for all of it.

const tags = ["ratecard: CloudKitty targets"];
const TARGETS = "/v1/ratecard/targets";

// Booleans go through a transform: trpc-to-openapi turns bare boolean leaves of an input into
// coercions ("false" would become true).
const ZFlag = z.boolean().transform((flag) => flag);
const ZMode = z.enum(TARGET_MODES);

// The connection is checked by the domain, whose messages never quote a rejected value: the REST
// layer's validation faults quote them ("Value: '...'"), and a secret must not come back.
const ZConnectionIn = z.unknown().meta({
  description:
    'Either `{"kind": "noauth", "url": "http://cloudkitty:8889"}` or `{"kind": "keystone", ' +
    '"authUrl": "http://keystone:5000/v3", "region": "RegionOne", "interface": "public", ' +
    '"credential": {"kind": "application-credential", "id": "...", "secret": "..."}}` ' +
    '(or `"credential": {"kind": "password", "username", "password", "projectName", ' +
    '"userDomainName", "projectDomainName"}`). The secret or password is write-only.',
});

const ZConnectionOut = z.union([
  z.object({ kind: z.literal("noauth"), url: z.string() }),
  z.object({
    kind: z.literal("keystone"),
    auth_url: z.string(),
    region: z.string().nullable(),
    interface: z.enum(["public", "internal", "admin"]),
    credential: z.union([
      z.object({ kind: z.literal("application-credential"), id: z.string() }),
      z.object({
        kind: z.literal("password"),
        username: z.string(),
        user_domain_name: z.string(),
        project_name: z.string(),
        project_domain_name: z.string(),
      }),
    ]),
  }),
]);

const ZModuleOut = z.object({
  module_id: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  hot_config: z.boolean(),
  priority: z.number(),
});

const ZProbeOut = z.object({
  reachable: z.boolean(),
  auth: z.enum(["noauth", "ok", "refused", "unknown"]),
  endpoint: z.string().optional(),
  generation: z.enum(["pre-23", "23+", "unknown"]),
  generationEvidence: z.string().optional(),
  modules: z.array(ZModuleOut).optional(),
  problem: z.string().optional(),
  requestIds: z.array(z.string()),
  at: z.string(),
});

const ZCounts = z.object({
  modules: z.number(),
  groups: z.number(),
  services: z.number(),
  fields: z.number(),
  mappings: z.number(),
  thresholds: z.number(),
  scripts: z.number(),
});

const ZTargetOut = z.object({
  target_id: z.string(),
  name: z.string(),
  mode: ZMode,
  prune: z.boolean(),
  push_scripts: z.boolean(),
  push_modules: z.boolean(),
  connection: ZConnectionOut,
  has_secret: z.boolean(),
  revision: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  last_probe: ZProbeOut.nullable(),
  last_import: z
    .object({
      merge: z.boolean(),
      revision: z.string(),
      counts: ZCounts,
      duplicates: z.number(),
      skipped: z.number(),
      conflicts: z.number(),
      at: z.string(),
    })
    .nullable(),
  apply_in_progress: z
    .object({
      since: z.string(),
      until: z.string(),
      actor: z.string().nullable(),
      plan_id: z.string().nullable(),
      instance: z.string().nullable(),
    })
    .nullable()
    .describe(
      "The apply under way on the target (on any instance), as its lease names it: since when, " +
        "when its lease lapses unless renewed, who asked, which plan, which instance (host name " +
        "and process id). null when none is. Another apply meanwhile is refused with a 409.",
    ),
});

const ZBriefRule = z.object({ id: z.string(), cost: z.string(), type: z.string() });
const ZImportOut = z.object({
  run_id: z.string(),
  target_id: z.string(),
  merge: z.boolean(),
  planned_revision: z.string(),
  revision: z.string(),
  applied: z.record(z.string(), z.unknown()),
  report: z.object({
    counts: ZCounts,
    duplicates: z.array(
      z.object({
        kind: z.enum(["mapping", "threshold"]),
        parent: z.string(),
        key: z.string().nullable(),
        tenant_id: z.string().nullable(),
        group_id: z.string().nullable(),
        kept: ZBriefRule,
        dropped: z.array(ZBriefRule),
        costsDiffer: z.boolean(),
      }),
    ),
    skipped: z.array(
      z.object({ kind: z.string(), id: z.string(), where: z.string(), reason: z.string() }),
    ),
    doubles: z.array(
      z.object({
        kind: z.string(),
        id: z.string(),
        where: z.string(),
        attribute: z.string(),
        imported: z.string(),
        likely: z.string(),
      }),
    ),
    notes: z.array(z.string()),
  }),
  conflicts: z.array(
    z.object({ kind: z.string(), id: z.string(), where: z.string(), reason: z.string() }),
  ),
  request_count: z.number(),
  read_ms: z.number(),
  write_ms: z.number(),
});

const ZPlanOp = z.enum(TARGET_PLAN_OPS);
const ZOpCounts = z.record(ZPlanOp, z.number());
const ZAttributes = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
const ZTargetPlanOut = z.object({
  plan_id: z.string(),
  target_id: z.string(),
  revision: z.string(),
  ratecard_revision: z.string(),
  target_fingerprint: z.string(),
  generation: z.enum(["pre-23", "23+", "unknown"]),
  prune: z.boolean(),
  push_scripts: z.boolean(),
  push_modules: z.boolean(),
  in_force_only: z.boolean(),
  left_out: z.object({ scheduled: z.number(), ended: z.number() }),
  notes: z.array(z.string()),
  doublePrecision: z.boolean(),
  operations: z.array(
    z.object({
      op: ZPlanOp,
      kind: z.string(),
      path: z.string(),
      ratecard_id: z.string().nullable(),
      target_id: z.string().nullable(),
      before: ZAttributes.nullable(),
      after: ZAttributes.nullable(),
      changes: z.array(z.string()).optional(),
      reason: z.string().optional(),
    }),
  ),
  counts: ZOpCounts,
  byKind: z.record(z.string(), ZOpCounts),
  skipped: z.array(
    z.object({ kind: z.string(), id: z.string(), where: z.string(), reason: z.string() }),
  ),
  request_count: z.number(),
});

const ZApplyOut = z.object({
  run_id: z.string(),
  target_id: z.string(),
  plan_id: z.string(),
  status: z.enum(["ok", "empty", "partial", "failed"]),
  ratecard_revision: z.string(),
  operations: z.array(
    z.object({
      op: ZPlanOp,
      kind: z.string(),
      path: z.string(),
      ratecard_id: z.string().nullable(),
      target_id: z.string().nullable(),
      status: z.number().nullable(),
      request_id: z.string().nullable(),
      outcome: z.enum(APPLY_OUTCOMES),
      error: z.string().optional(),
      reason: z.string().optional(),
      requests: z.array(
        z.object({
          method: z.enum(["GET", "POST", "PUT", "DELETE"]),
          status: z.number().nullable(),
          request_id: z.string().nullable(),
        }),
      ),
    }),
  ),
  counts: z.record(z.enum(APPLY_OUTCOMES), z.number()),
  error: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string(),
});

/** JSON's null stands for absent in a probe report's optional members. */
const withoutNulls = <T extends object>(report: T) =>
  Object.fromEntries(Object.entries(report).filter(([, value]) => value !== undefined)) as T;

const ZTargetId = z.strictObject({ target_id: ZPathId });

const ZRunBrief = z.object({
  run_id: z.string(),
  target_id: z.string(),
  kind: z.enum(TARGET_RUN_KINDS),
  status: z.enum(TARGET_RUN_STATUSES),
  actor: z.string().nullable(),
  ratecard_revision: z.string().nullable(),
  target_fingerprint: z.string().nullable(),
  plan_id: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  summary: z.record(z.string(), z.unknown()),
  operation_count: z.number(),
  error: z.string().nullable(),
});
const ZRun = ZRunBrief.extend({
  operations: z.array(z.unknown()),
  document: z.unknown(),
});

export const targetsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: TARGETS,
        tags,
        summary: "List CloudKitty targets",
        description: "Every target, without secrets. Policy: ratecard:manage_targets.",
        protect: false,
      },
    })
    .input(z.strictObject({}).optional())
    .output(z.object({ targets: z.array(ZTargetOut) }))
    .query(async ({ ctx }) => ({ targets: await listTargets(ctx.prisma) })),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${TARGETS}/{target_id}`,
        tags,
        summary: "Get a CloudKitty target",
        protect: false,
      },
    })
    .input(ZTargetId)
    .output(ZTargetOut)
    .query(({ ctx, input }) => getTarget(ctx.prisma, input.target_id)),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: TARGETS,
        tags,
        summary: "Register a CloudKitty target",
        description:
          "A CloudKitty deployment to import from (`import-source`, read only) or apply to " +
          "(`managed`). `prune`: whether apply deletes rules that exist only in CloudKitty " +
          "(default false). `push_scripts`, `push_modules`: whether apply pushes pyscripts " +
          "(code CloudKitty's processor runs) and module states (enabled, priority); default " +
          "false. The credential's secret is stored encrypted and never returned. " +
          "Policy: ratecard:manage_targets.",
        protect: false,
      },
    })
    .input(
      z.strictObject({
        name: z.string(),
        mode: ZMode,
        prune: ZFlag.optional(),
        push_scripts: ZFlag.optional(),
        push_modules: ZFlag.optional(),
        connection: ZConnectionIn,
      }),
    )
    .output(ZTargetOut)
    .mutation(async ({ ctx, input }) => {
      const target = await createTarget(ctx.prisma, ctx.targetSecrets(), input, auditOf(ctx));
      return created(ctx, target, target.target_id);
    }),

  update: publicProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${TARGETS}/{target_id}`,
        tags,
        summary: "Change a CloudKitty target",
        description:
          "Changes the attributes given. `connection` replaces the whole connection; a Keystone " +
          "credential of the same kind may leave its secret or password out to keep the stored one.",
        protect: false,
      },
    })
    .input(
      z.strictObject({
        target_id: ZPathId,
        name: z.string().optional(),
        mode: ZMode.optional(),
        prune: ZFlag.optional(),
        push_scripts: ZFlag.optional(),
        push_modules: ZFlag.optional(),
        connection: ZConnectionIn.optional(),
      }),
    )
    .output(ZTargetOut)
    .mutation(({ ctx, input }) => {
      const { target_id, ...patch } = input;
      return updateTarget(ctx.prisma, ctx.targetSecrets(), target_id, patch, auditOf(ctx));
    }),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${TARGETS}/{target_id}`,
        tags,
        summary: "Delete a CloudKitty target",
        description: "Ratecard forgets the target; CloudKitty is not touched.",
        protect: false,
      },
    })
    .input(ZTargetId)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteTarget(ctx.prisma, input.target_id, auditOf(ctx));
      deleted(ctx);
    }),

  probe: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: `${TARGETS}/{target_id}/probe`,
        tags,
        summary: "Probe a CloudKitty target",
        description:
          "Reachability, authentication (Keystone token and catalog), CloudKitty's API " +
          "generation (`pre-23` or `23+`) and its rating modules; kept as the target's last probe.",
        protect: false,
      },
    })
    .input(ZTargetId)
    .output(ZProbeOut.extend({ target_id: z.string() }))
    .mutation(async ({ ctx, input }) =>
      withoutNulls(await probeTarget(ctx.prisma, ctx.targetSecrets(), input.target_id)),
    ),

  import: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: `${TARGETS}/{target_id}/import`,
        tags,
        summary: "Import a CloudKitty target's rules",
        description:
          "Reads the target's whole rule set and stores it in Ratecard with CloudKitty's ids, in " +
          "one transaction. Into an empty Ratecard (409 otherwise) unless `merge` is true: then " +
          "what Ratecard lacks is added and what differs is reported as a conflict, Ratecard's " +
          "rules unchanged. The report lists what Ratecard cannot hold as CloudKitty does " +
          "(duplicate rules, with both ids, and the one imported).",
        protect: false,
      },
    })
    .input(z.strictObject({ target_id: ZPathId, merge: ZFlag.optional() }))
    .output(ZImportOut)
    .mutation(async ({ ctx, input }) => {
      const result = await importTarget(
        ctx.prisma,
        ctx.targetSecrets(),
        input.target_id,
        { merge: input.merge ?? false },
        auditOf(ctx),
      );
      return result as unknown as z.infer<typeof ZImportOut>;
    }),

  plan: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: `${TARGETS}/{target_id}/plan`,
        tags,
        summary: "Plan a CloudKitty target",
        description:
          "Reads the target and lists what CloudKitty would need to hold Ratecard's current rule " +
          "set: `create`, `update` (in place), `replace` (delete and create, with the reason), " +
          "`delete` (objects only in CloudKitty, when the target prunes), `unmanaged` (objects " +
          "only in CloudKitty, when it does not), `duplicate` (rules CloudKitty holds twice) and " +
          "`module` (enabled, priority). Objects are paired through the target's id map, then by " +
          "id, then by natural key. Nothing changes in CloudKitty; the plan is kept as a run " +
          "(`plan_id`, which an apply names) with Ratecard's revision and the target's " +
          "fingerprint. Before CloudKitty 23 only the rules in force now are planned (no validity " +
          "dates there); scripts and module states only when the target pushes them.",
        protect: false,
      },
    })
    .input(ZTargetId)
    .output(ZTargetPlanOut)
    .mutation(({ ctx, input }) =>
      planTargetRules(ctx.prisma, ctx.targetSecrets(), input.target_id, auditOf(ctx)),
    ),

  // tRPC reserves `apply` as a procedure name.
  applyPlan: publicProcedure
    .meta({
      action: true,
      openapi: {
        method: "POST",
        path: `${TARGETS}/{target_id}/apply`,
        tags,
        summary: "Apply a plan to a CloudKitty target",
        description:
          "Carries out the plan `plan_id` on a managed target: groups, services, fields, rules, " +
          "then scripts and modules (when the target pushes them); deletes in reverse. Not " +
          "atomic on CloudKitty's side: it stops at the first failure (`partial`) and never rolls " +
          "back; planning and applying again converges. On CloudKitty 23+ rules carry their " +
          "validity dates and a change to a started rule ends it and starts Ratecard's " +
          "(`supersede`). 409 when the target is an import source, its API generation was " +
          "unknown when planned, when Ratecard's rule set, the target's rule " +
          "set or its settings changed since the plan, or while another apply to the target is " +
          "under way on any instance (the 409 says since when, by whom and on which instance). " +
          "An apply that loses its lease (renewals failing for a whole lease) stops before its " +
          "next CloudKitty request: `partial`, error `the apply lease was lost: ...`. " +
          "Answers the apply's run: each operation with CloudKitty's status and request id.",
        protect: false,
      },
    })
    .input(z.strictObject({ target_id: ZPathId, plan_id: ZPathId }))
    .output(ZApplyOut)
    .mutation(({ ctx, input }) => {
      const audit = auditOf(ctx);
      // The lease makes the apply exclusive across every instance on the database; the domain's
      // own guard only knows this process.
      return withTargetApplyLease(
        ctx.prisma,
        {
          targetId: input.target_id,
          planId: input.plan_id,
          actor: runActor(audit),
          leaseMs: ctx.targetApplyLeaseMs,
        },
        (signal) =>
          applyTargetRules(ctx.prisma, ctx.targetSecrets(), input.target_id, input.plan_id, audit, {
            signal,
          }),
      );
    }),

  runs: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${TARGETS}/{target_id}/runs`,
        tags,
        summary: "List a CloudKitty target's runs",
        description:
          "The target's import, plan, apply and drift runs, newest first (`limit`, default 50), " +
          "without their operations and documents (see the run itself).",
        protect: false,
      },
    })
    .input(
      z.strictObject({
        target_id: ZPathId,
        limit: ZQueryInteger(1, 1000).optional(),
        kind: z.enum(TARGET_RUN_KINDS).optional(),
      }),
    )
    .output(z.object({ runs: z.array(ZRunBrief) }))
    .query(async ({ ctx, input }) => ({
      runs: await listRuns(ctx.prisma, input.target_id, {
        ...(input.limit === undefined ? {} : { limit: input.limit }),
        ...(input.kind === undefined ? {} : { kind: input.kind }),
      }),
    })),

  run: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${TARGETS}/{target_id}/runs/{run_id}`,
        tags,
        summary: "Get one run of a CloudKitty target",
        description:
          "Everything kept of the run: each operation with CloudKitty's status and request id, " +
          "and for an apply the Ratecard rule-set document applied.",
        protect: false,
      },
    })
    .input(z.strictObject({ target_id: ZPathId, run_id: ZPathId }))
    .output(ZRun)
    .query(({ ctx, input }) => getRun(ctx.prisma, input.target_id, input.run_id)),
});
