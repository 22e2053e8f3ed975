-- Acknowledged rule-set warnings, the same as the SQLite migration of the same name. Like every
-- table whose rows change an answer, it moves "ratecard_data_version" (see the init migration):
-- the read snapshot keeps GET answers (the warnings with their acknowledgements) per data version.

-- CreateTable
CREATE TABLE "warning_acknowledgements" (
    "warning_key" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "user_id" TEXT,
    "user_name" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revision" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "warning_acknowledgements_pkey" PRIMARY KEY ("warning_key")
);

CREATE CONSTRAINT TRIGGER "ratecard_data_changed" AFTER INSERT OR UPDATE OR DELETE ON "warning_acknowledgements"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ratecard_data_changed"();
CREATE TRIGGER "ratecard_data_truncated" AFTER TRUNCATE ON "warning_acknowledgements"
    FOR EACH STATEMENT EXECUTE FUNCTION "ratecard_data_changed"();
