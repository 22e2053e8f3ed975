-- Rule lifecycle (docs/lifecycle.md): CloudKitty master's validity period, name, description,
-- authors and soft delete on mappings, thresholds and scripts. Hand-written (Prisma cannot express
-- the partial unique indexes, and its diff would recreate the tables and lose their CHECKs).
-- SQLite adds a NOT NULL column only with a constant default: "start" gets one in Prisma's own text
-- format (so that text comparisons stay right), then every existing row is set below; every insert
-- gives its own.

ALTER TABLE "hashmap_mappings" ADD COLUMN "name" TEXT;
ALTER TABLE "hashmap_mappings" ADD COLUMN "start" DATETIME NOT NULL DEFAULT '1970-01-01T00:00:00.000+00:00';
ALTER TABLE "hashmap_mappings" ADD COLUMN "end" DATETIME;
ALTER TABLE "hashmap_mappings" ADD COLUMN "description" TEXT;
ALTER TABLE "hashmap_mappings" ADD COLUMN "created_by" TEXT;
ALTER TABLE "hashmap_mappings" ADD COLUMN "updated_by" TEXT;
ALTER TABLE "hashmap_mappings" ADD COLUMN "deleted" DATETIME;
ALTER TABLE "hashmap_mappings" ADD COLUMN "deleted_by" TEXT;

ALTER TABLE "hashmap_thresholds" ADD COLUMN "name" TEXT;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "start" DATETIME NOT NULL DEFAULT '1970-01-01T00:00:00.000+00:00';
ALTER TABLE "hashmap_thresholds" ADD COLUMN "end" DATETIME;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "description" TEXT;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "created_by" TEXT;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "updated_by" TEXT;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "deleted" DATETIME;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "deleted_by" TEXT;

ALTER TABLE "pyscripts_scripts" ADD COLUMN "start" DATETIME NOT NULL DEFAULT '1970-01-01T00:00:00.000+00:00';
ALTER TABLE "pyscripts_scripts" ADD COLUMN "end" DATETIME;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "description" TEXT;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "created_by" TEXT;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "updated_by" TEXT;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "deleted" DATETIME;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "deleted_by" TEXT;
-- Existing rules took effect when they were created, were made by nobody Ratecard can name (as in
-- CloudKitty's own migration, 'migration'), and get a name as CloudKitty's migration gives one: 32
-- hexadecimal digits, here their id's.
UPDATE "hashmap_mappings" SET "start" = "created_at", "created_by" = 'migration', "name" = REPLACE("id", '-', '');
UPDATE "hashmap_thresholds" SET "start" = "created_at", "created_by" = 'migration', "name" = REPLACE("id", '-', '');
UPDATE "pyscripts_scripts" SET "start" = "created_at", "created_by" = 'migration';

-- A soft-deleted rule keeps its row but frees its identity: the identity indexes, rule names and
-- script names are unique among the rules not deleted only.
DROP INDEX "hashmap_mappings_identity";
CREATE UNIQUE INDEX "hashmap_mappings_identity" ON "hashmap_mappings" (
    COALESCE("service_id", ''), COALESCE("field_id", ''), COALESCE("value", ''),
    COALESCE("tenant_id", ''), COALESCE("group_id", '')
) WHERE "deleted" IS NULL;

DROP INDEX "hashmap_thresholds_identity";
CREATE UNIQUE INDEX "hashmap_thresholds_identity" ON "hashmap_thresholds" (
    COALESCE("service_id", ''), COALESCE("field_id", ''), "level",
    COALESCE("tenant_id", ''), COALESCE("group_id", '')
) WHERE "deleted" IS NULL;

CREATE UNIQUE INDEX "hashmap_mappings_name" ON "hashmap_mappings" ("name") WHERE "deleted" IS NULL;
CREATE UNIQUE INDEX "hashmap_thresholds_name" ON "hashmap_thresholds" ("name") WHERE "deleted" IS NULL;

DROP INDEX "pyscripts_scripts_name_key";
CREATE UNIQUE INDEX "pyscripts_scripts_name_key" ON "pyscripts_scripts" ("name") WHERE "deleted" IS NULL;
