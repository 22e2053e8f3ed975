export { CheckSyntaxError, formatCheck, parseCheck } from "./check.js";
export type { Check, GenericSubject, TemplatePart } from "./check.js";
export type { Credentials, Target } from "./evaluate.js";
export { PolicyError, createPolicy } from "./policy.js";
export type { Policy } from "./policy.js";
export { PolicyFileError, loadPolicyFile } from "./file.js";
export {
  CLOUDKITTY_DEFAULT_RULES,
  DEFAULT_RULES,
  RATECARD_DEFAULT_RULES,
  RULE_DESCRIPTIONS,
} from "./defaults.js";
