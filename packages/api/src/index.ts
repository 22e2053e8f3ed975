export { appRouter, type AppRouter } from "./root.js";
export {
  createCallerFactory,
  createContextInner,
  type Context,
  type RatecardMeta,
  type RestOutcome,
} from "./trpc.js";
