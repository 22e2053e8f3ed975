-- CloudKitty targets (see the model in prisma/models.prisma and docs/cloudkitty-targets.md).
-- The secret column holds AES-256-GCM ciphertext only. SQLite moves PRAGMA data_version by itself.

-- CreateTable
CREATE TABLE "cloudkitty_targets" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "prune" BOOLEAN NOT NULL DEFAULT false,
    "kind" TEXT NOT NULL,
    "connection" TEXT NOT NULL,
    "secret" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_probe" TEXT,
    "last_probe_at" DATETIME,
    "last_import" TEXT,
    "last_import_at" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "cloudkitty_targets_name_key" ON "cloudkitty_targets"("name");
