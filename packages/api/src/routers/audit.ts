import { z } from "zod";
import { ZPathId, ZQueryInteger, ZRecordHistoryInput } from "@ratecard/validators";
import {
  AUDIT_OPERATIONS,
  AUDIT_RESOURCE_TYPES,
  listAuditEvents,
  listRecordHistory,
  MAX_AUDIT_PAGE,
} from "../domain/audit.js";
import { publicProcedure, router } from "../trpc.js";

// The audit trail, read over REST on Ratecard's own path (outside CloudKitty's namespaces) and RPC.

const tags = ["ratecard: audit"];

const ZPageSize = ZQueryInteger(1, MAX_AUDIT_PAGE);

/** An ISO 8601 moment with its offset (`2026-11-25T18:00:00Z`), or a date (its midnight UTC). */
const ZMoment = z.string().transform((input, ctx) => {
  const valid =
    /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/.test(
      input,
    );
  const moment = new Date(input);
  if (valid && !Number.isNaN(moment.getTime())) return moment;
  ctx.addIssue({
    code: "custom",
    message: "Expected an ISO 8601 date, or a date and time with its offset.",
    input,
  });
  return z.NEVER;
});

export const ZAuditFilters = z
  .strictObject({
    resource_type: z.enum(AUDIT_RESOURCE_TYPES).optional(),
    resource_id: ZPathId.optional(),
    user_id: ZPathId.optional(),
    operation: z.enum(AUDIT_OPERATIONS).optional(),
    since: ZMoment.optional().meta({ description: "Events at or after this moment." }),
    until: ZMoment.optional().meta({ description: "Events before this moment." }),
    limit: ZPageSize.optional().meta({
      description: `Events per page, newest first (default 100, at most ${MAX_AUDIT_PAGE}).`,
    }),
    cursor: z
      .string()
      .optional()
      .meta({ description: "The previous page's `next`: the page of events older than it." }),
  })
  .optional();

const ZRuleObjects = z.array(z.record(z.string(), z.unknown())).optional();

export const ZAuditEvent = z
  .object({
    event_id: z.int(),
    at: z.string().meta({ example: "2026-11-25T18:00:00.000Z" }),
    user_id: z.string().nullable(),
    user_name: z.string().nullable(),
    project_id: z.string().nullable(),
    address: z.string().nullable(),
    request_id: z.string().nullable(),
    operation: z.enum(AUDIT_OPERATIONS),
    resource_type: z.enum(AUDIT_RESOURCE_TYPES),
    resource_id: z.string(),
    resource_revision: z.int().nullable().meta({
      description:
        "The resource's revision after the change; null for a delete, a user or a token.",
    }),
    before: z.record(z.string(), z.unknown()).nullable(),
    after: z.record(z.string(), z.unknown()).nullable(),
    cascade: z
      .object({
        deleted: z
          .object({
            fields: ZRuleObjects,
            mappings: ZRuleObjects,
            thresholds: ZRuleObjects,
            tokens: ZRuleObjects,
          })
          .optional(),
        detached: z.object({ mappings: ZRuleObjects, thresholds: ZRuleObjects }).optional(),
        password_changed: z
          .literal(true)
          .optional()
          .meta({ description: "A user's update set a new password (never shown)." }),
        sessions_revoked: z
          .int()
          .optional()
          .meta({ description: "The console sessions that new password revoked." }),
      })
      .nullable(),
  })
  .meta({ id: "AuditEvent" });

export const auditRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/ratecard/audit",
        tags,
        summary: "List the audit trail",
        description:
          "Every change to every resource, newest first: who (user, project, address, request " +
          "id), when, the operation, and the object before and after. A delete's `cascade` " +
          "lists what it took with it (or, for a group, moved to no group). Filters combine; " +
          "page with `limit` and the answer's `next` as `cursor`. Policy: ratecard:read_audit.",
        protect: false,
      },
    })
    .input(ZAuditFilters)
    .output(z.object({ events: z.array(ZAuditEvent), next: z.string().nullable() }))
    .query(({ ctx, input }) => listAuditEvents(ctx.prisma, input ?? {})),

  /**
   * RPC only: a service's, field's or group's History tab, the record's events and those of the
   * records beneath it in one paged list (the console once asked for one trail per rule).
   */
  ofRecord: publicProcedure
    .input(ZRecordHistoryInput)
    .output(z.object({ events: z.array(ZAuditEvent), next: z.string().nullable() }))
    .query(({ ctx, input }) => listRecordHistory(ctx.prisma, input)),
});
