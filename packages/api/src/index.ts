export { appRouter, type AppRouter } from "./root.js";
export {
  createCallerFactory,
  createContextInner,
  allowAll,
  type Access,
  type AccessRefusal,
  type Actor,
  type Context,
  type RatecardMeta,
  type RestOutcome,
} from "./trpc.js";
export { RuleSetCache } from "./domain/rating.js";
export { TargetSecretBox } from "./domain/targets.js";
export { countRatingObjects } from "./domain/console.js";
