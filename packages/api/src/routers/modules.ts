import { z } from "zod";
import { ZPathId, ZRatingModuleUpdate } from "@ratecard/validators";
import { getRatingModule, listRatingModules, updateRatingModule } from "../domain/modules.js";
import { publicProcedure, router } from "../trpc.js";
import { ZRatingModuleOut, expectingRevision, writeOf } from "./revisions.js";
import { deleted } from "./rest.js";

const tags = ["rating modules"];

export const modulesRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/rating/modules",
        tags,
        summary: "List rating modules",
        protect: false,
      },
    })
    .input(z.void())
    .output(z.object({ modules: z.array(ZRatingModuleOut) }))
    .query(async ({ ctx }) => ({ modules: await listRatingModules(ctx.prisma) })),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/rating/modules/{module_id}",
        tags,
        summary: "Get a rating module",
        protect: false,
      },
    })
    .input(z.object({ module_id: ZPathId }))
    .output(ZRatingModuleOut)
    .query(({ ctx, input }) => getRatingModule(ctx.prisma, input.module_id)),

  update: publicProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/v1/rating/modules/{module_id}",
        tags,
        summary: "Enable or disable a module, set its priority",
        protect: false,
      },
      bodyName: "module",
    })
    .input(expectingRevision(ZRatingModuleUpdate))
    .output(ZRatingModuleOut)
    .mutation(({ ctx, input }) =>
      updateRatingModule(
        ctx.prisma,
        {
          moduleId: input.module_id,
          enabled: input.enabled,
          priority: input.priority,
        },
        writeOf(ctx, input.revision),
      ),
    ),

  reload: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/v1/rating/reload_modules",
        tags,
        summary: "Reload the module list",
        description:
          "Kept for CloudKitty's client: Ratecard reads modules on every request, so there is nothing to reload.",
        protect: false,
      },
    })
    .input(z.void())
    .output(z.void())
    .query(({ ctx }) => {
      deleted(ctx);
    }),
});
