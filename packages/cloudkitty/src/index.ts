export {
  CloudKittyClient,
  type ApiGeneration,
  type CloudKittyClientOptions,
  type CloudKittyRuleSet,
  type DeleteOutcome,
  type FieldTree,
  type MappingCreate,
  type MappingUpdate,
  type ModuleUpdate,
  type ParentFilter,
  type ProbeReport,
  type RuleParent,
  type ServiceTree,
  type ThresholdCreate,
  type ThresholdUpdate,
  type WriteOutcome,
} from "./client.js";
export { compareDecimals, decimalsEqual, isDecimalText, toPlainDecimal } from "./decimal.js";
export {
  CloudKittyAuthError,
  CloudKittyCatalogError,
  CloudKittyClientError,
  CloudKittyFaultError,
  CloudKittyResponseError,
  CloudKittyUnexpectedStatusError,
  CloudKittyUnreachableError,
} from "./errors.js";
export type {
  CkField,
  CkGroup,
  CkMapping,
  CkMetric,
  CkModule,
  CkRuleType,
  CkScript,
  CkService,
  CkThreshold,
} from "./schemas.js";
export { Secret } from "./secret.js";
export {
  cloudKittyTarget,
  describeTarget,
  ZCloudKittyTargetInput,
  type ApplicationCredential,
  type CloudKittyTarget,
  type CloudKittyTargetInput,
  type EndpointInterface,
  type KeystoneTarget,
  type NoAuthTarget,
  type PasswordCredential,
} from "./target.js";
