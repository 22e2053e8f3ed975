import { z } from "zod";
import { ZFieldCreate, ZPathId } from "@ratecard/validators";
import { createField, deleteFieldCascade, getField, listFields } from "../../domain/fields.js";
import { publicProcedure, router } from "../../trpc.js";
import { ZFieldOut, auditOf, expectingRevision, writeOf } from "../revisions.js";
import { created, deleted, HASHMAP } from "../rest.js";

const tags = ["hashmap: fields"];
const ZFieldId = z.strictObject({ field_id: ZPathId });

export const fieldsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/fields`,
        tags,
        summary: "List the fields of a service",
        protect: false,
      },
    })
    .input(z.strictObject({ service_id: ZPathId }))
    .output(z.object({ fields: z.array(ZFieldOut) }))
    .query(async ({ ctx, input }) => ({ fields: await listFields(ctx.prisma, input.service_id) })),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/fields/{field_id}`,
        tags,
        summary: "Get a field",
        protect: false,
      },
    })
    .input(ZFieldId)
    .output(ZFieldOut)
    .query(({ ctx, input }) => getField(ctx.prisma, input.field_id)),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${HASHMAP}/fields`,
        tags,
        summary: "Create a field",
        protect: false,
      },
      bodyName: "field_data",
    })
    .input(ZFieldCreate)
    .output(ZFieldOut)
    .mutation(async ({ ctx, input }) => {
      const field = await createField(
        ctx.prisma,
        { name: input.name, serviceId: input.service_id },
        auditOf(ctx),
      );
      return created(ctx, field, field.field_id);
    }),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${HASHMAP}/fields/{field_id}`,
        tags,
        summary: "Delete a field with its mappings and thresholds",
        protect: false,
      },
    })
    .input(expectingRevision(ZFieldId))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteFieldCascade(ctx.prisma, input.field_id, writeOf(ctx, input.revision));
      deleted(ctx);
    }),
});
