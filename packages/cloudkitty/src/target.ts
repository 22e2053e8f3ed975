import { z } from "zod";
import { Secret } from "./secret.js";

/**
 * Where a CloudKitty is and how to authenticate to it. Either a plain URL (CloudKitty with
 * `auth_strategy = noauth`) or Keystone: a token from POST /v3/auth/tokens, and the `rating`
 * endpoint of that token's catalog.
 */
export type CloudKittyTarget = NoAuthTarget | KeystoneTarget;

export interface NoAuthTarget {
  readonly kind: "noauth";
  /** CloudKitty's root, e.g. http://cloudkitty:8889 (the /v1 paths are appended). */
  readonly url: string;
}

export type EndpointInterface = "public" | "internal" | "admin";

export interface KeystoneTarget {
  readonly kind: "keystone";
  /** Keystone's URL, with or without /v3 (http://keystone:5000 or http://keystone:5000/v3). */
  readonly authUrl: string;
  readonly credential: ApplicationCredential | PasswordCredential;
  /** Which region's `rating` endpoint; required only when the catalog has several. */
  readonly region: string | undefined;
  readonly interface: EndpointInterface;
}

export interface ApplicationCredential {
  readonly kind: "application-credential";
  readonly id: string;
  readonly secret: Secret;
}

export interface PasswordCredential {
  readonly kind: "password";
  readonly username: string;
  readonly password: Secret;
  readonly userDomainName: string;
  readonly projectName: string;
  readonly projectDomainName: string;
}

const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .transform((url) => url.replace(/\/+$/, ""));
const nonEmpty = z.string().trim().min(1);

/** The input a target is made from (what a registration form or an API body carries). */
export const ZCloudKittyTargetInput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("noauth"), url: httpUrl }),
  z.object({
    kind: z.literal("keystone"),
    authUrl: httpUrl,
    region: nonEmpty.optional(),
    interface: z.enum(["public", "internal", "admin"]).default("public"),
    credential: z.discriminatedUnion("kind", [
      z.object({
        kind: z.literal("application-credential"),
        id: nonEmpty,
        secret: z.string().min(1),
      }),
      z.object({
        kind: z.literal("password"),
        username: nonEmpty,
        password: z.string().min(1),
        userDomainName: nonEmpty.default("Default"),
        projectName: nonEmpty,
        projectDomainName: nonEmpty.default("Default"),
      }),
    ]),
  }),
]);
export type CloudKittyTargetInput = z.input<typeof ZCloudKittyTargetInput>;

/**
 * Validates a target and wraps its secrets, so that the result can be logged, thrown or
 * serialised without showing them. Throws a ZodError on bad input (zod's messages do not quote
 * the rejected values).
 */
export function cloudKittyTarget(input: CloudKittyTargetInput): CloudKittyTarget {
  const parsed = ZCloudKittyTargetInput.parse(input);
  if (parsed.kind === "noauth") return Object.freeze({ kind: "noauth", url: parsed.url });
  const credential =
    parsed.credential.kind === "application-credential"
      ? Object.freeze({
          kind: "application-credential" as const,
          id: parsed.credential.id,
          secret: new Secret(parsed.credential.secret),
        })
      : Object.freeze({
          kind: "password" as const,
          username: parsed.credential.username,
          password: new Secret(parsed.credential.password),
          userDomainName: parsed.credential.userDomainName,
          projectName: parsed.credential.projectName,
          projectDomainName: parsed.credential.projectDomainName,
        });
  return Object.freeze({
    kind: "keystone",
    authUrl: parsed.authUrl,
    credential,
    region: parsed.region,
    interface: parsed.interface,
  });
}

/** One line naming a target without its secrets, for logs and run histories. */
export function describeTarget(target: CloudKittyTarget): string {
  if (target.kind === "noauth") return `${target.url} (noauth)`;
  const who =
    target.credential.kind === "application-credential"
      ? `application credential ${target.credential.id}`
      : `${target.credential.username}@${target.credential.projectName}`;
  return `rating endpoint (${target.interface}${target.region ? `, ${target.region}` : ""}) of ${target.authUrl} as ${who}`;
}
