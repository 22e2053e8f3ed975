// `pnpm db:migrate`: applies the migrations to DATABASE_URL and exits, for deployments that
// migrate in a job before rolling out (the server also migrates at start). Exit code 0 when the
// database is current, 1 with a message otherwise (2: newer than this code).
import { redactUrl } from "./database.js";
import { DatabaseTooNewError, migrateDatabase } from "./migrate.js";

const url = process.env.DATABASE_URL ?? "file:./data/ratecard.db";
try {
  await migrateDatabase(url);
  console.log(`Ratecard database ${redactUrl(url)} is up to date.`);
} catch (error) {
  console.error(
    `Ratecard migration failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = error instanceof DatabaseTooNewError ? 2 : 1;
}
