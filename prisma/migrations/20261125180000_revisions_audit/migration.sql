-- Revisions and the audit trail (docs/audit.md). Hand-written rather than Prisma's diff, which would
-- recreate every rating table and lose their CHECKs and identity indexes: SQLite adds a NOT NULL
-- column with a constant default in place, at the end of the table, where the schema has it.
-- Every existing row starts at revision 1. The triggers are hand-written (Prisma cannot express
-- them): carry them over whenever audit_events is recreated.

ALTER TABLE "hashmap_services" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_fields" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_groups" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_mappings" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "rating_modules" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "audit_events" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "user_id" TEXT,
    "user_name" TEXT,
    "project_id" TEXT,
    "address" TEXT,
    "request_id" TEXT,
    "operation" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "revision" INTEGER,
    "before" TEXT,
    "after" TEXT,
    "cascade" TEXT,
    CONSTRAINT "audit_events_operation" CHECK ("operation" IN ('create', 'update', 'delete'))
);

-- CreateIndex
CREATE INDEX "audit_events_resource_type_resource_id_idx" ON "audit_events"("resource_type", "resource_id");

-- CreateIndex
CREATE INDEX "audit_events_user_id_idx" ON "audit_events"("user_id");

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");

-- The trail is append-only: the database itself refuses to change or remove an event.
CREATE TRIGGER "audit_events_no_update" BEFORE UPDATE ON "audit_events"
BEGIN SELECT RAISE(ABORT, 'audit events are immutable: UPDATE refused'); END;
CREATE TRIGGER "audit_events_no_delete" BEFORE DELETE ON "audit_events"
BEGIN SELECT RAISE(ABORT, 'audit events are immutable: DELETE refused'); END;
