-- Revisions and the audit trail (docs/audit.md), the same as the SQLite migration of the same name.
-- Every existing row starts at revision 1. The CHECK and the triggers are hand-written (Prisma
-- cannot express them): carry them over whenever audit_events is recreated. audit_events needs no
-- "ratecard_data_changed" trigger: an event is only ever inserted beside the change it records.

ALTER TABLE "hashmap_services" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_fields" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_groups" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_mappings" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "hashmap_thresholds" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "pyscripts_scripts" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "rating_modules" ADD COLUMN "revision" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "audit_events" (
    "seq" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
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

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("seq"),
    CONSTRAINT "audit_events_operation" CHECK ("operation" IN ('create', 'update', 'delete'))
);

-- CreateIndex
CREATE INDEX "audit_events_resource_type_resource_id_idx" ON "audit_events"("resource_type", "resource_id");

-- CreateIndex
CREATE INDEX "audit_events_user_id_idx" ON "audit_events"("user_id");

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");

-- The trail is append-only: the database itself refuses to change or remove an event.
CREATE FUNCTION "audit_events_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit events are immutable: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER "audit_events_no_update_or_delete" BEFORE UPDATE OR DELETE ON "audit_events"
    FOR EACH ROW EXECUTE FUNCTION "audit_events_immutable"();
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
    FOR EACH STATEMENT EXECUTE FUNCTION "audit_events_immutable"();
