import { Prisma } from "./generated/prisma/client.js";

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === code;
}

/** A unique index refused the write (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return hasCode(error, "P2002");
}

/** A foreign key refused the write (P2003): the referenced row vanished concurrently. */
export function isForeignKeyViolation(error: unknown): boolean {
  return hasCode(error, "P2003");
}
