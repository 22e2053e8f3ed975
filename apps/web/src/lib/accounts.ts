// Local accounts as the console shows them: a token's state, and the CLI command that uses one.

export interface TokenLike {
  expiresAt: string;
  revokedAt: string | null;
}

export type TokenStatus = "active" | "expired" | "revoked";

export function tokenStatus(token: TokenLike, now = Date.now()): TokenStatus {
  if (token.revokedAt) return "revoked";
  return Date.parse(token.expiresAt) <= now ? "expired" : "active";
}

const dateFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });

export function formatDateTime(iso: string | null): string {
  return iso ? dateFormat.format(new Date(iso)) : "—";
}

/** Single-quotes a shell word unless it is plainly safe, so the command can be pasted as is. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The real `cloudkitty` CLI with an API token: keystoneauth's admin_token plugin, no Keystone. */
export function cliCommand(endpoint: string, secret: string): string {
  return [
    "cloudkitty",
    "--os-auth-type admin_token",
    `--os-endpoint ${shellWord(endpoint)}`,
    `--os-token ${shellWord(secret)}`,
    "hashmap service list",
  ].join(" ");
}
