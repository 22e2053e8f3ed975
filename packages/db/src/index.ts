export {
  clientProvider,
  databaseProvider,
  openDatabase,
  redactUrl,
  type Database,
  type DatabaseOptions,
  type DatabaseProvider,
  type Durability,
} from "./database.js";
export { DatabaseTooNewError, migrateDatabase, migrationState } from "./migrate.js";
export {
  isCheckViolation,
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isTransactionConflict,
  isUniqueViolation,
} from "./errors.js";
export { appendAuditEvent, holdAuditOrder, type NewAuditEvent } from "./audit-events.js";
export {
  type AuditEventOf,
  insertMapping,
  insertThreshold,
  type NewMapping,
  type NewThreshold,
} from "./rule-writes.js";
export {
  findLocalTokenByHash,
  localAccountsGeneration,
  type LocalTokenWithUser,
} from "./local-tokens.js";
export type { PrismaClient, Prisma } from "./generated/prisma/client.js";
export type {
  Service as ServiceRow,
  Field as FieldRow,
  Group as GroupRow,
  Mapping as MappingRow,
  Threshold as ThresholdRow,
  Script as ScriptRow,
  RatingModule as RatingModuleRow,
  LocalUser as LocalUserRow,
  LocalToken as LocalTokenRow,
  AuditEvent as AuditEventRow,
} from "./generated/prisma/client.js";
