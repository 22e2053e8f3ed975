// `pnpm db:copy <from> <to>`: copies a whole Ratecard database (SQLite file: or postgresql:// URLs,
// either way) into an empty one, ids kept, and compares every table afterwards. Stop the servers
// on the source first: writes made during the copy would not be in it.
import { redactUrl } from "./database.js";
import { copyDatabase, CopyError } from "./copy.js";
import { DatabaseTooNewError } from "./migrate.js";

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error(
    "Usage: pnpm db:copy <from-url> <to-url>\n" +
      "  e.g. pnpm db:copy file:./data/ratecard.db postgresql://ratecard:secret@db:5432/ratecard",
  );
  process.exit(1);
}
try {
  const { rows } = await copyDatabase(from, to);
  console.log(`Copied ${redactUrl(from)} to ${redactUrl(to)}; every table read back and equal:`);
  for (const [table, count] of Object.entries(rows)) console.log(`  ${table}: ${count}`);
} catch (error) {
  const known = error instanceof CopyError || error instanceof DatabaseTooNewError;
  console.error(`Ratecard copy failed: ${error instanceof Error ? error.message : String(error)}`);
  if (!known) console.error(error);
  process.exitCode = 1;
}
