export { AccountError, type AccountErrorKind } from "./errors.js";
export {
  hashPassword,
  verifyPassword,
  assertPasswordPolicy,
  MIN_PASSWORD_LENGTH,
  MAX_PASSWORD_LENGTH,
} from "./passwords.js";
export {
  checkPassword,
  createUser,
  deleteUser,
  getUser,
  listUsers,
  localRoles,
  updateUser,
  type AccountsHook,
  type UserChange,
  type LocalRole,
  type LocalUser,
} from "./users.js";
export {
  accountsGeneration,
  authenticateToken,
  deleteExpiredTokens,
  issueToken,
  listTokens,
  revokeToken,
  tokenKinds,
  tokenSecretPrefixes,
  DEFAULT_API_TOKEN_TTL_MS,
  LAST_USED_RESOLUTION_MS,
  MAX_TOKEN_NAME_LENGTH,
  MAX_TOKEN_TTL_MS,
  type TokenChange,
  type TokenKind,
  type TokenSummary,
} from "./tokens.js";
export { ensureFirstAdmin, FIRST_ADMIN_NAME, INITIAL_PASSWORD_FILE } from "./first-admin.js";
