import { z } from "zod";
import { ZGroupCreate, ZNoArguments, ZPathId, ZQueryBoolean } from "@ratecard/validators";
import { createGroup, deleteGroup, getGroup, listGroups } from "../../domain/groups.js";
import { listMappings, listThresholds } from "../../domain/rules.js";
import { publicProcedure, router } from "../../trpc.js";
import {
  ZGroupOut,
  ZMappingOut,
  ZThresholdOut,
  auditOf,
  expectingRevision,
  writeOf,
} from "../revisions.js";
import { created, deleted, HASHMAP } from "../rest.js";

const tags = ["hashmap: groups"];
const ZGroupFilter = z.strictObject({ group_id: ZPathId });

export const groupsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/groups`,
        tags,
        summary: "List groups",
        protect: false,
      },
    })
    .input(ZNoArguments)
    .output(z.object({ groups: z.array(ZGroupOut) }))
    .query(async ({ ctx }) => ({ groups: await listGroups(ctx.prisma) })),

  // Registered before `get`: the first route whose path matches wins.
  mappings: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/groups/mappings`,
        tags,
        summary: "List the mappings of a group",
        protect: false,
      },
    })
    .input(ZGroupFilter)
    .output(z.object({ mappings: z.array(ZMappingOut) }))
    .query(async ({ ctx, input }) => ({ mappings: await listMappings(ctx.prisma, input) })),

  thresholds: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/groups/thresholds`,
        tags,
        summary: "List the thresholds of a group",
        protect: false,
      },
    })
    .input(ZGroupFilter)
    .output(z.object({ thresholds: z.array(ZThresholdOut) }))
    .query(async ({ ctx, input }) => ({ thresholds: await listThresholds(ctx.prisma, input) })),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/groups/{group_id}`,
        tags,
        summary: "Get a group",
        protect: false,
      },
    })
    .input(z.strictObject({ group_id: ZPathId }))
    .output(ZGroupOut)
    .query(({ ctx, input }) => getGroup(ctx.prisma, input.group_id)),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${HASHMAP}/groups`,
        tags,
        summary: "Create a group",
        protect: false,
      },
      bodyName: "group_data",
    })
    .input(ZGroupCreate)
    .output(ZGroupOut)
    .mutation(async ({ ctx, input }) => {
      const group = await createGroup(ctx.prisma, input.name, auditOf(ctx));
      return created(ctx, group, group.group_id);
    }),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${HASHMAP}/groups/{group_id}`,
        tags,
        summary: "Delete a group",
        description:
          "With recursive=true its mappings and thresholds are deleted too; otherwise they move to " +
          "no group (the default group), which changes prices. Refused with 409 when that move " +
          "would make two rules identical.",
        protect: false,
      },
    })
    .input(
      expectingRevision(z.strictObject({ group_id: ZPathId, recursive: ZQueryBoolean.optional() })),
    )
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteGroup(
        ctx.prisma,
        input.group_id,
        input.recursive ?? false,
        writeOf(ctx, input.revision),
      );
      deleted(ctx);
    }),
});
