-- Applying Ratecard's rule set to a managed CloudKitty target (docs/cloudkitty-targets.md): the
-- target's opt-ins, its id map (Ratecard id -> CloudKitty id) and its run history. SQLite moves
-- PRAGMA data_version by itself.

-- AlterTable
ALTER TABLE "cloudkitty_targets" ADD COLUMN "push_scripts" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "cloudkitty_targets" ADD COLUMN "push_modules" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "cloudkitty_target_ids" (
    "target_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ratecard_id" TEXT NOT NULL,
    "cloudkitty_id" TEXT NOT NULL,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("target_id", "kind", "ratecard_id"),
    CONSTRAINT "cloudkitty_target_ids_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "cloudkitty_targets" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "cloudkitty_target_runs" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "target_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "actor" TEXT,
    "ratecard_revision" TEXT,
    "target_fingerprint" TEXT,
    "plan_id" TEXT,
    "started_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" DATETIME,
    "summary" TEXT NOT NULL DEFAULT '{}',
    "operations" TEXT NOT NULL DEFAULT '[]',
    "document" TEXT,
    "error" TEXT,
    CONSTRAINT "cloudkitty_target_runs_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "cloudkitty_targets" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "cloudkitty_target_ids_target_id_kind_cloudkitty_id_key" ON "cloudkitty_target_ids"("target_id", "kind", "cloudkitty_id");

-- CreateIndex
CREATE INDEX "cloudkitty_target_runs_target_id_started_at_idx" ON "cloudkitty_target_runs"("target_id", "started_at");
