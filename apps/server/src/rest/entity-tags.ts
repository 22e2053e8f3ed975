// Revisions over REST. CloudKitty's objects have no revision key, so REST carries it in headers:
// an answer showing one resource is tagged `ETag: "<id>.<revision>"`, and PUT and DELETE honour
// If-Match with that tag (RFC 9110 strong comparison; `*` and no If-Match: no precondition, as
// CloudKitty's clients expect). The router's RPC answers keep `revision` in the body instead.

/** The entity tag of `id` at `revision`. */
export function entityTagOf(id: string, revision: number): string {
  return `"${id}.${revision}"`;
}

/**
 * The revision an If-Match header expects of resource `id`: undefined without a precondition, 0
 * (no revision is 0) when none of its tags is one of this resource's, so the write is refused (412)
 * unless the resource is missing (404).
 */
export function expectedRevisionOf(ifMatch: string | undefined, id: string): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === "*") return undefined;
  for (const tag of ifMatch.split(",")) {
    const match = /^"(.*)\.([1-9][0-9]{0,14})"$/.exec(tag.trim());
    if (match && match[1] === id) return Number(match[2]);
  }
  return 0;
}

/**
 * Moves the revision out of a REST answer: a single object's becomes its ETag (its first key is its
 * id, as in every CloudKitty object); the objects of a list lose theirs. Setting the key to
 * undefined, which JSON leaves out, keeps the objects' shapes for the serializer.
 */
export function takeRevision(data: unknown): string | undefined {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const record = data as Record<string, unknown>;
  if (typeof record.revision === "number") {
    const revision = record.revision;
    record.revision = undefined;
    const id: unknown = Object.values(record)[0];
    return typeof id === "string" ? entityTagOf(id, revision) : undefined;
  }
  for (const value of Object.values(record)) {
    if (!Array.isArray(value)) continue;
    for (const item of value as unknown[]) {
      if (item !== null && typeof item === "object" && "revision" in item)
        (item as Record<string, unknown>).revision = undefined;
    }
  }
  return undefined;
}
