-- The same as the SQLite migration of the same name. The run history is read by GET answers (the
-- runs list), so both new tables move "ratecard_data_version" like every table whose rows change an
-- answer (see the init migration).

-- AlterTable
ALTER TABLE "cloudkitty_targets" ADD COLUMN "push_scripts" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "push_modules" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "cloudkitty_target_ids" (
    "target_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ratecard_id" TEXT NOT NULL,
    "cloudkitty_id" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cloudkitty_target_ids_pkey" PRIMARY KEY ("target_id","kind","ratecard_id")
);

-- CreateTable
CREATE TABLE "cloudkitty_target_runs" (
    "id" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "actor" TEXT,
    "ratecard_revision" TEXT,
    "target_fingerprint" TEXT,
    "plan_id" TEXT,
    "started_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMP(3),
    "summary" TEXT NOT NULL DEFAULT '{}',
    "operations" TEXT NOT NULL DEFAULT '[]',
    "document" TEXT,
    "error" TEXT,

    CONSTRAINT "cloudkitty_target_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "cloudkitty_target_ids_target_id_kind_cloudkitty_id_key" ON "cloudkitty_target_ids"("target_id", "kind", "cloudkitty_id");

-- CreateIndex
CREATE INDEX "cloudkitty_target_runs_target_id_started_at_idx" ON "cloudkitty_target_runs"("target_id", "started_at");

-- AddForeignKey
ALTER TABLE "cloudkitty_target_ids" ADD CONSTRAINT "cloudkitty_target_ids_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "cloudkitty_targets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cloudkitty_target_runs" ADD CONSTRAINT "cloudkitty_target_runs_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "cloudkitty_targets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE CONSTRAINT TRIGGER "ratecard_data_changed" AFTER INSERT OR UPDATE OR DELETE ON "cloudkitty_target_ids"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ratecard_data_changed"();
CREATE TRIGGER "ratecard_data_truncated" AFTER TRUNCATE ON "cloudkitty_target_ids"
    FOR EACH STATEMENT EXECUTE FUNCTION "ratecard_data_changed"();
CREATE CONSTRAINT TRIGGER "ratecard_data_changed" AFTER INSERT OR UPDATE OR DELETE ON "cloudkitty_target_runs"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ratecard_data_changed"();
CREATE TRIGGER "ratecard_data_truncated" AFTER TRUNCATE ON "cloudkitty_target_runs"
    FOR EACH STATEMENT EXECUTE FUNCTION "ratecard_data_changed"();
