-- CloudKitty targets, the same as the SQLite migration of the same name. Like every table whose
-- rows change an answer, it moves "ratecard_data_version" (see the init migration): the read
-- snapshot keeps GET answers (the targets list) per data version.

-- CreateTable
CREATE TABLE "cloudkitty_targets" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "prune" BOOLEAN NOT NULL DEFAULT false,
    "kind" TEXT NOT NULL,
    "connection" TEXT NOT NULL,
    "secret" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_probe" TEXT,
    "last_probe_at" TIMESTAMP(3),
    "last_import" TEXT,
    "last_import_at" TIMESTAMP(3),

    CONSTRAINT "cloudkitty_targets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "cloudkitty_targets_name_key" ON "cloudkitty_targets"("name");

CREATE CONSTRAINT TRIGGER "ratecard_data_changed" AFTER INSERT OR UPDATE OR DELETE ON "cloudkitty_targets"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ratecard_data_changed"();
CREATE TRIGGER "ratecard_data_truncated" AFTER TRUNCATE ON "cloudkitty_targets"
    FOR EACH STATEMENT EXECUTE FUNCTION "ratecard_data_changed"();
