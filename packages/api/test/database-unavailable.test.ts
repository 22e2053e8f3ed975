import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, type Database } from "@ratecard/db";
import { DATABASE_UNAVAILABLE_MESSAGE } from "../src/trpc.js";
import { openTestDatabase } from "./support/database.js";

// A database that cannot answer is the router's SERVICE_UNAVAILABLE (HTTP 503), not an internal
// error: here SQLite busy past its 5 s wait, as another process's long write transaction makes it.

let database: Database;
let caller: Awaited<ReturnType<typeof openTestDatabase>>["caller"];
let other: Database;

beforeAll(async () => {
  ({ database, caller } = await openTestDatabase());
  other = await openDatabase({ url: database.url });
});
afterAll(async () => {
  await other.close();
  await database.close();
});

it("answers SERVICE_UNAVAILABLE when the database stays busy, and serves again after", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  // Holds SQLite's write lock (a second connection, as another process would) until released.
  const holder = other.prisma
    .$transaction(
      async (tx) => {
        await tx.service.create({ data: { name: "held" } });
        holding();
        await released;
      },
      { timeout: 30_000 },
    )
    .catch(() => {});
  await held;
  const error = await caller.hashmap.services.create({ name: "blocked" }).then(
    () => null,
    (e: unknown) => e,
  );
  release();
  await holder;
  expect(error).toBeInstanceOf(TRPCError);
  expect(error).toMatchObject({
    code: "SERVICE_UNAVAILABLE",
    message: DATABASE_UNAVAILABLE_MESSAGE,
  });
  await expect(caller.hashmap.services.create({ name: "after" })).resolves.toMatchObject({
    name: "after",
  });
}, 30_000);
