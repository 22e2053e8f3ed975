import { z } from "zod";
import { checkPythonSyntax, formatPythonSyntaxError } from "./python.js";
import { ruleLifecycleBody } from "./lifecycle.js";
import { ZName, ZPathId, ZUuid } from "./schemas.js";

// Apart from the other request bodies so that a bundle without script forms leaves the Python
// parser out (the package is free of side effects): the console loads it with its script pages.

/** A script's source: CloudKitty stores it unchecked; Ratecard refuses one that is not Python. */
const ZScriptData = z
  .string({ error: "Wrong type, expected a string." })
  .superRefine((data, ctx) => {
    const error = checkPythonSyntax(data);
    if (error)
      ctx.addIssue({ code: "custom", message: formatPythonSyntaxError(error), input: data });
  });

export const ZScriptCreate = z.strictObject({
  name: ZName,
  data: ZScriptData,
  script_id: ZUuid.optional(),
  checksum: z.never({ error: "checksum is computed by the server and cannot be set." }).optional(),
  ...ruleLifecycleBody,
});
export const ZScriptUpdate = z.strictObject({
  script_id: ZPathId,
  name: ZName.optional(),
  data: ZScriptData.optional(),
  checksum: z.never({ error: "checksum is computed by the server and cannot be set." }).optional(),
  ...ruleLifecycleBody,
});
