-- The apply lease of a CloudKitty target (docs/cloudkitty-targets.md, "Apply lock"): one apply at
-- a time per target across every Ratecard instance on this database. An instance takes it with
-- one conditional UPDATE (free or expired), renews it while its apply runs and clears it when the
-- apply ends; a holder that dies leaves it to expire by itself. SQLite moves PRAGMA data_version
-- by itself.

-- AlterTable
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_token" TEXT;
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_holder" TEXT;
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_actor" TEXT;
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_plan_id" TEXT;
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_since" DATETIME;
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_until" DATETIME;
