import { accountsRouter } from "./routers/accounts.js";
import { auditRouter } from "./routers/audit.js";
import { consoleRouter } from "./routers/console.js";
import { fieldsRouter } from "./routers/hashmap/fields.js";
import { groupsRouter } from "./routers/hashmap/groups.js";
import { mappingsRouter } from "./routers/hashmap/mappings.js";
import { servicesRouter } from "./routers/hashmap/services.js";
import { thresholdsRouter } from "./routers/hashmap/thresholds.js";
import { typesRouter } from "./routers/hashmap/types.js";
import { infoRouter } from "./routers/info.js";
import { modulesRouter } from "./routers/modules.js";
import { ratingRouter } from "./routers/rating.js";
import { rulesetRouter } from "./routers/ruleset.js";
import { scriptsRouter } from "./routers/pyscripts/scripts.js";
import { targetDriftRouter } from "./routers/target-drift.js";
import { targetsRouter } from "./routers/targets.js";
import { warningsRouter } from "./routers/warnings.js";
import { router } from "./trpc.js";

export const appRouter = router({
  hashmap: router({
    types: typesRouter,
    services: servicesRouter,
    fields: fieldsRouter,
    groups: groupsRouter,
    mappings: mappingsRouter,
    thresholds: thresholdsRouter,
    preview: ratingRouter.preview,
    // With each warning's acknowledgement (routers/warnings.ts).
    warnings: warningsRouter.list,
  }),
  pyscripts: router({ scripts: scriptsRouter }),
  modules: modulesRouter,
  rating: router({ quote: ratingRouter.quote }),
  console: consoleRouter,
  info: infoRouter,
  accounts: accountsRouter,
  audit: auditRouter,
  ruleset: rulesetRouter,
  // The drift check lives in its own router file (routers/target-drift.ts), same namespace.
  targets: router({ ...targetsRouter._def.record, ...targetDriftRouter._def.record }),
  warnings: router({
    acknowledge: warningsRouter.acknowledge,
    withdraw: warningsRouter.withdraw,
  }),
});

export type AppRouter = typeof appRouter;
