import { z } from "zod";
import {
  ZBodyInteger,
  ZField,
  ZGroup,
  ZMapping,
  ZRatingModule,
  ZScript,
  ZService,
  ZThreshold,
} from "@ratecard/validators";
import type { AuditContext } from "../domain/audit.js";
import type { WriteContext } from "../domain/revisions.js";
import type { Context } from "../trpc.js";

// Revisions on the wire. RPC answers carry each object's `revision`, and RPC writes may name the
// revision they expect. REST never shows the key: the REST layer moves an answer's revision into
// its ETag, turns If-Match into the expected revision, and refuses a REST request that names
// `revision` itself, as CloudKitty refuses an unknown attribute. So the OpenAPI document (REST's)
// leaves it out of the objects.

type JsonSchemaOverride = (context: { jsonSchema: Record<string, unknown> }) => void;

const hideRevision: JsonSchemaOverride = ({ jsonSchema }) => {
  const properties = jsonSchema.properties as Record<string, unknown> | undefined;
  if (properties) delete properties.revision;
  if (Array.isArray(jsonSchema.required))
    jsonSchema.required = jsonSchema.required.filter((key) => key !== "revision");
};

const ZRevision = z.int().min(1);

function withRevision<Shape extends z.core.$ZodLooseShape>(schema: z.ZodObject<Shape>, id: string) {
  return schema.extend({ revision: ZRevision.optional() }).meta({ id, override: hideRevision });
}

export const ZServiceOut = withRevision(ZService, "Service");
export const ZFieldOut = withRevision(ZField, "Field");
export const ZGroupOut = withRevision(ZGroup, "Group");
export const ZMappingOut = withRevision(ZMapping, "Mapping");
export const ZThresholdOut = withRevision(ZThreshold, "Threshold");
export const ZScriptOut = withRevision(ZScript, "Script");
export const ZRatingModuleOut = withRevision(ZRatingModule, "RatingModule");

/** The revision an RPC write expects (the `revision` of the object it read). */
export const ZExpectedRevision = ZBodyInteger.optional().meta({
  description:
    "RPC only: the revision the change expects; a resource at another one is left unchanged " +
    "(PRECONDITION_FAILED). REST clients send If-Match with the ETag instead.",
});

/**
 * Adds the optional expected revision to a write's input. `safeExtend` keeps any refinement of
 * the schema; the cast only restates the type TypeScript cannot resolve for a generic shape.
 */
export function expectingRevision<Schema extends z.ZodObject>(schema: Schema) {
  return (schema as unknown as z.ZodObject<Record<never, never>>)
    .safeExtend({ revision: ZExpectedRevision })
    .meta({ override: hideRevision }) as unknown as z.ZodObject<
    Schema["shape"] & { revision: typeof ZExpectedRevision },
    Schema["_zod"]["config"]
  >;
}

/** Who makes the request's changes, for the audit trail. */
export function auditOf(ctx: Context): AuditContext {
  return {
    userId: ctx.actor?.userId ?? null,
    userName: ctx.actor?.userName ?? null,
    projectId: ctx.actor?.projectId ?? null,
    address: ctx.actor?.address ?? null,
    requestId: ctx.requestId,
  };
}

export function writeOf(ctx: Context, expected: number | undefined): WriteContext {
  return { audit: auditOf(ctx), expected };
}
