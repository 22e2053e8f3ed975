-- Acknowledged rule-set warnings (see the model in prisma/models.prisma and
-- packages/api/src/domain/warnings-ack.ts). SQLite moves PRAGMA data_version by itself.

-- CreateTable
CREATE TABLE "warning_acknowledgements" (
    "warning_key" TEXT NOT NULL PRIMARY KEY,
    "code" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "user_id" TEXT,
    "user_name" TEXT,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revision" INTEGER NOT NULL DEFAULT 1
);

