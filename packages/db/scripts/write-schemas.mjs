// Writes one full Prisma schema per database from prisma/models.prisma: a schema's datasource
// provider is fixed, so each database gets its own schema, generated client and migration history,
// while the models stay written once. `--check` fails when a written schema is out of date.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const models = fs.readFileSync(path.join(root, "prisma/models.prisma"), "utf8");

const targets = [
  {
    provider: "sqlite",
    schema: "prisma/schema.prisma",
    client: "packages/db/src/generated/prisma",
  },
  {
    provider: "postgresql",
    schema: "prisma/postgresql/schema.prisma",
    client: "packages/db/src/generated/postgresql",
  },
];

const render = ({ provider, schema, client }) => {
  const output = path.relative(path.dirname(path.join(root, schema)), path.join(root, client));
  return `// Written by packages/db/scripts/write-schemas.mjs from prisma/models.prisma: edit that file.

generator client {
  provider            = "prisma-client"
  output              = "${output}"
  engineType          = "client"
  runtime             = "nodejs"
  moduleFormat        = "esm"
  importFileExtension = "js"
}

datasource db {
  provider = "${provider}"
  url      = env("DATABASE_URL")
}

${models}`;
};

const check = process.argv.includes("--check");
let stale = 0;
for (const target of targets) {
  const file = path.join(root, target.schema);
  const text = render(target);
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
  if (current === text) continue;
  if (check) {
    console.error(`${target.schema} is out of date: run pnpm --filter @ratecard/db db:generate`);
    stale++;
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}
process.exit(stale > 0 ? 1 : 0);
