import { z } from "zod";
import {
  lifecycleFilters,
  ZPathId,
  ZQueryBoolean,
  ZScriptCreate,
  ZScriptUpdate,
} from "@ratecard/validators";
import {
  createScript,
  deleteScript,
  getScript,
  listScripts,
  updateScript,
} from "../../domain/scripts.js";
import { publicProcedure, router } from "../../trpc.js";
import { ZScriptOut, auditOf, expectingRevision, writeOf } from "../revisions.js";
import { created, deleted, PYSCRIPTS } from "../rest.js";

const tags = ["pyscripts"];
const ZScriptId = z.object({ script_id: ZPathId });

export const scriptsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PYSCRIPTS}/scripts`,
        tags,
        summary: "List scripts (no_data=true leaves out their source)",
        description:
          "Deleted rules are left out unless deleted=true; CloudKitty master's filters start (at or after), end (before), created_by, updated_by, deleted_by, description (contains, any case) and is_active=true (in force now) narrow the list (docs/lifecycle.md).",
        protect: false,
      },
    })
    .input(z.strictObject({ no_data: ZQueryBoolean.optional(), ...lifecycleFilters }).optional())
    .output(z.object({ scripts: z.array(ZScriptOut) }))
    .query(async ({ ctx, input }) => {
      const { no_data, ...filters } = input ?? {};
      return { scripts: await listScripts(ctx.prisma, !(no_data ?? false), filters) };
    }),

  get: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PYSCRIPTS}/scripts/{script_id}`,
        tags,
        summary: "Get a script",
        protect: false,
      },
    })
    .input(ZScriptId)
    .output(ZScriptOut)
    .query(({ ctx, input }) => getScript(ctx.prisma, input.script_id)),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PYSCRIPTS}/scripts`,
        tags,
        summary: "Create a script",
        description:
          "start defaults to now and may not be in the past unless the query says ?force=true; end may not precede start, and a date alone means 23:59:59 that day (docs/lifecycle.md).",
        protect: false,
      },
      bodyName: "script_data",
      queryParameters: ["force"],
    })
    .input(ZScriptCreate.extend({ force: ZQueryBoolean.optional() }))
    .output(ZScriptOut)
    .mutation(async ({ ctx, input }) => {
      const script = await createScript(
        ctx.prisma,
        {
          name: input.name,
          data: input.data,
          start: input.start,
          end: input.end,
          description: input.description,
        },
        auditOf(ctx),
        { force: input.force },
      );
      return created(ctx, script, script.script_id);
    }),

  update: publicProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: `${PYSCRIPTS}/scripts/{script_id}`,
        tags,
        summary: "Rename a script or replace its source",
        protect: false,
      },
      bodyName: "script_data",
    })
    .input(expectingRevision(ZScriptUpdate))
    .output(ZScriptOut)
    .mutation(({ ctx, input }) =>
      updateScript(
        ctx.prisma,
        {
          scriptId: input.script_id,
          name: input.name,
          data: input.data,
          start: input.start,
          end: input.end,
          description: input.description,
        },
        writeOf(ctx, input.revision),
        { mode: ctx.ruleUpdateMode },
      ),
    ),

  delete: publicProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${PYSCRIPTS}/scripts/{script_id}`,
        tags,
        summary: "Delete a script",
        protect: false,
      },
    })
    .input(expectingRevision(ZScriptId))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteScript(ctx.prisma, input.script_id, writeOf(ctx, input.revision));
      deleted(ctx);
    }),
});
