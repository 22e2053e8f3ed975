import { z } from "zod";
import {
  ZMappingCreate,
  ZMappingUpdate,
  ZPathId,
  ZQueryBoolean,
  ZRuleListFilters,
} from "@ratecard/validators";
import { getGroup } from "../../domain/groups.js";
import {
  createMapping,
  deleteMapping,
  getMapping,
  listMappings,
  updateMapping,
} from "../../domain/rules.js";
import { fail } from "../../domain/errors.js";
import { publicProcedure, router } from "../../trpc.js";
import { ZGroupOut, ZMappingOut, auditOf, expectingRevision, writeOf } from "../revisions.js";
import { created, deleted, HASHMAP } from "../rest.js";

const tags = ["hashmap: mappings"];
const ZMappingId = z.strictObject({ mapping_id: ZPathId });

export const mappingsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/mappings`,
        tags,
        summary: "List mappings",
        description:
          "Every filter is optional. tenant_id is read only with filter_tenant=true; " +
          "filter_tenant=true without tenant_id lists the mappings that have no tenant." +
          " Deleted rules are left out unless deleted=true; CloudKitty master's filters start (at or after), end (before), created_by, updated_by, deleted_by, description (contains, any case) and is_active=true (in force now) narrow the list (docs/lifecycle.md).",
        protect: false,
      },
    })
    .input(ZRuleListFilters)
    .output(z.object({ mappings: z.array(ZMappingOut) }))
    .query(async ({ ctx, input }) => ({ mappings: await listMappings(ctx.prisma, input) })),

  // Registered before `get`: the first route whose path matches wins.
  group: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/mappings/group`,
        tags,
        summary: "Get the group of a mapping",
        protect: false,
      },
    })
    .input(z.strictObject({ mapping_id: ZPathId }))
    .output(ZGroupOut)
    .query(async ({ ctx, input }) => {
      const mapping = await getMapping(ctx.prisma, input.mapping_id);
      if (!mapping.group_id)
        throw fail.notFound(`Mapping has no group (UUID: ${input.mapping_id})`);
      return getGroup(ctx.prisma, mapping.group_id);
    }),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/mappings/{mapping_id}`,
        tags,
        summary: "Get a mapping",
        protect: false,
      },
    })
    .input(ZMappingId)
    .output(ZMappingOut)
    .query(({ ctx, input }) => getMapping(ctx.prisma, input.mapping_id)),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${HASHMAP}/mappings`,
        tags,
        summary: "Create a mapping",
        description:
          "start defaults to now and may not be in the past unless the query says ?force=true; end may not precede start, and a date alone means 23:59:59 that day (docs/lifecycle.md).",
        protect: false,
      },
      bodyName: "mapping_data",
      queryParameters: ["force"],
    })
    .input(ZMappingCreate.extend({ force: ZQueryBoolean.optional() }))
    .output(ZMappingOut)
    .mutation(async ({ ctx, input }) => {
      const { force, ...data } = input;
      const mapping = await createMapping(ctx.prisma, data, auditOf(ctx), { force });
      return created(ctx, mapping, mapping.mapping_id);
    }),

  update: publicProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${HASHMAP}/mappings/{mapping_id}`,
        tags,
        summary: "Update a mapping",
        description:
          "Replaces value, type (default flat), cost, tenant_id (default none) and group_id " +
          "(kept when omitted, removed when null). The parent never changes. The id may also be " +
          "given as ?mapping_id= or inside the body of PUT .../mappings, as CloudKitty's client does.",
        protect: false,
      },
      bodyName: "mapping",
    })
    .input(expectingRevision(ZMappingUpdate))
    .output(ZMappingOut)
    .mutation(({ ctx, input }) => {
      const { revision, ...update } = input;
      return updateMapping(ctx.prisma, update, writeOf(ctx, revision), {
        mode: ctx.ruleUpdateMode,
      });
    }),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${HASHMAP}/mappings/{mapping_id}`,
        tags,
        summary: "Delete a mapping",
        protect: false,
      },
    })
    .input(expectingRevision(ZMappingId))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteMapping(ctx.prisma, input.mapping_id, writeOf(ctx, input.revision));
      deleted(ctx);
    }),
});
