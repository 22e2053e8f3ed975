import { z } from "zod";
import { RULE_TYPES, ZNoArguments, ZRuleType } from "@ratecard/validators";
import { publicProcedure, router } from "../../trpc.js";
import { HASHMAP } from "../rest.js";

export const typesRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${HASHMAP}/types`,
        tags: ["hashmap: types"],
        summary: "List mapping types",
        protect: false,
      },
    })
    .input(ZNoArguments)
    .output(z.array(ZRuleType))
    .query(() => [...RULE_TYPES]),
});
