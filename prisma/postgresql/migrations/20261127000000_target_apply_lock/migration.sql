-- The same as the SQLite migration of the same name: the apply lease of a CloudKitty target. The
-- table's trigger already moves "ratecard_data_version" (see the init migration); a renewal moves
-- it too, which an apply's id-map writes do many times a second anyway.

-- AlterTable
ALTER TABLE "cloudkitty_targets" ADD COLUMN "apply_lock_token" TEXT,
ADD COLUMN "apply_lock_holder" TEXT,
ADD COLUMN "apply_lock_actor" TEXT,
ADD COLUMN "apply_lock_plan_id" TEXT,
ADD COLUMN "apply_lock_since" TIMESTAMP(3),
ADD COLUMN "apply_lock_until" TIMESTAMP(3);
