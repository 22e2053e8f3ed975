// What the audit trail records: the API filters by these and the console's activity page offers
// them, so both read the one list here.

export const AUDIT_RESOURCE_TYPES = [
  "service",
  "field",
  "group",
  "mapping",
  "threshold",
  "script",
  "module",
  // Local accounts (AUTH_STRATEGY=local): users and API tokens, never a password or secret.
  "user",
  "token",
  // An acknowledged rule-set warning (domain/warnings-ack.ts), keyed by the warning's key.
  "warning",
  // A CloudKitty target (domain/targets.ts): its connection without the secret.
  "target",
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

export const AUDIT_OPERATIONS = ["create", "update", "delete"] as const;
export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];
