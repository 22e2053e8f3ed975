-- CreateTable
CREATE TABLE "hashmap_services" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "hashmap_fields" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hashmap_fields_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "hashmap_services" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "hashmap_groups" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "hashmap_mappings" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "value" TEXT,
    "type" TEXT NOT NULL DEFAULT 'flat',
    "cost" TEXT NOT NULL,
    "service_id" TEXT,
    "field_id" TEXT,
    "group_id" TEXT,
    "tenant_id" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hashmap_mappings_one_parent" CHECK (("service_id" IS NULL) <> ("field_id" IS NULL)),
    CONSTRAINT "hashmap_mappings_type" CHECK ("type" IN ('flat', 'rate')),
    CONSTRAINT "hashmap_mappings_cost_canonical" CHECK ("cost" GLOB '*[0-9].[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'),
    CONSTRAINT "hashmap_mappings_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "hashmap_services" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "hashmap_mappings_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "hashmap_fields" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "hashmap_mappings_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "hashmap_groups" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "hashmap_thresholds" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'flat',
    "cost" TEXT NOT NULL,
    "service_id" TEXT,
    "field_id" TEXT,
    "group_id" TEXT,
    "tenant_id" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "hashmap_thresholds_one_parent" CHECK (("service_id" IS NULL) <> ("field_id" IS NULL)),
    CONSTRAINT "hashmap_thresholds_type" CHECK ("type" IN ('flat', 'rate')),
    CONSTRAINT "hashmap_thresholds_cost_canonical" CHECK ("cost" GLOB '*[0-9].[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'),
    CONSTRAINT "hashmap_thresholds_level_canonical" CHECK ("level" GLOB '*[0-9].[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]' AND "level" NOT GLOB '*.*.*'),
    CONSTRAINT "hashmap_thresholds_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "hashmap_services" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "hashmap_thresholds_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "hashmap_fields" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "hashmap_thresholds_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "hashmap_groups" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "pyscripts_scripts" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "checksum" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "rating_modules" (
    "module_id" TEXT NOT NULL PRIMARY KEY,
    "description" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "hot_config" BOOLEAN NOT NULL,
    "priority" INTEGER NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_services_id_key" ON "hashmap_services"("id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_services_name_key" ON "hashmap_services"("name");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_fields_id_key" ON "hashmap_fields"("id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_fields_service_id_name_key" ON "hashmap_fields"("service_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_groups_id_key" ON "hashmap_groups"("id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_groups_name_key" ON "hashmap_groups"("name");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_mappings_id_key" ON "hashmap_mappings"("id");

-- CreateIndex
CREATE INDEX "hashmap_mappings_service_id_idx" ON "hashmap_mappings"("service_id");

-- CreateIndex
CREATE INDEX "hashmap_mappings_field_id_idx" ON "hashmap_mappings"("field_id");

-- CreateIndex
CREATE INDEX "hashmap_mappings_group_id_idx" ON "hashmap_mappings"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_thresholds_id_key" ON "hashmap_thresholds"("id");

-- CreateIndex
CREATE INDEX "hashmap_thresholds_service_id_idx" ON "hashmap_thresholds"("service_id");

-- CreateIndex
CREATE INDEX "hashmap_thresholds_field_id_idx" ON "hashmap_thresholds"("field_id");

-- CreateIndex
CREATE INDEX "hashmap_thresholds_group_id_idx" ON "hashmap_thresholds"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "pyscripts_scripts_id_key" ON "pyscripts_scripts"("id");

-- CreateIndex
CREATE UNIQUE INDEX "pyscripts_scripts_name_key" ON "pyscripts_scripts"("name");


-- Rule identity (see prisma/schema.prisma): identical rules collide even when tenant or group is
-- NULL. A service mapping's value "" and NULL both mean "no value".
CREATE UNIQUE INDEX "hashmap_mappings_identity" ON "hashmap_mappings" (
    COALESCE("service_id", ''), COALESCE("field_id", ''), COALESCE("value", ''),
    COALESCE("tenant_id", ''), COALESCE("group_id", '')
);

CREATE UNIQUE INDEX "hashmap_thresholds_identity" ON "hashmap_thresholds" (
    COALESCE("service_id", ''), COALESCE("field_id", ''), "level",
    COALESCE("tenant_id", ''), COALESCE("group_id", '')
);

-- CloudKitty's rating modules. Ratecard configures hashmap and pyscripts, so both start enabled.
INSERT INTO "rating_modules" ("module_id", "description", "enabled", "hot_config", "priority") VALUES
    ('hashmap', 'HashMap rating module.', true, true, 1),
    ('noop', 'Dummy test module.', false, false, 1),
    ('pyscripts', 'PyScripts rating module.', true, true, 1);
