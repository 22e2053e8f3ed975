import { z } from "zod";
import { ZNoArguments, ZPathId, ZServiceCreate } from "@ratecard/validators";
import { listFields } from "../../domain/fields.js";
import {
  createService,
  deleteServiceCascade,
  getService,
  listServices,
} from "../../domain/services.js";
import { publicProcedure, router } from "../../trpc.js";
import { ZFieldOut, ZServiceOut, auditOf, expectingRevision, writeOf } from "../revisions.js";
import { created, deleted, HASHMAP } from "../rest.js";

const tags = ["hashmap: services"];
const ZServiceId = z.strictObject({ service_id: ZPathId });

export const servicesRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/services`,
        tags,
        summary: "List services",
        protect: false,
      },
    })
    .input(ZNoArguments)
    .output(z.object({ services: z.array(ZServiceOut) }))
    .query(async ({ ctx }) => ({ services: await listServices(ctx.prisma) })),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/services/{service_id}`,
        tags,
        summary: "Get a service",
        protect: false,
      },
    })
    .input(ZServiceId)
    .output(ZServiceOut)
    .query(({ ctx, input }) => getService(ctx.prisma, input.service_id)),

  /** CloudKitty's nested form of `fields?service_id=<id>`: an unknown service has no fields. */
  fields: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/services/{service_id}/fields`,
        tags,
        summary: "List the fields of a service",
        protect: false,
      },
    })
    .input(ZServiceId)
    .output(z.object({ fields: z.array(ZFieldOut) }))
    .query(async ({ ctx, input }) => ({ fields: await listFields(ctx.prisma, input.service_id) })),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${HASHMAP}/services`,
        tags,
        summary: "Create a service",
        protect: false,
      },
      bodyName: "service_data",
    })
    .input(ZServiceCreate)
    .output(ZServiceOut)
    .mutation(async ({ ctx, input }) => {
      const service = await createService(ctx.prisma, input.name, auditOf(ctx));
      return created(ctx, service, service.service_id);
    }),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${HASHMAP}/services/{service_id}`,
        tags,
        summary: "Delete a service with its fields, mappings and thresholds",
        protect: false,
      },
    })
    .input(expectingRevision(ZServiceId))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteServiceCascade(ctx.prisma, input.service_id, writeOf(ctx, input.revision));
      deleted(ctx);
    }),
});
