-- Local accounts (AUTH_STRATEGY=local). Written with `prisma migrate diff` from the previous schema;
-- the CHECK constraints are hand-written (Prisma cannot express them): carry them over whenever
-- these tables are recreated.

-- CreateTable
CREATE TABLE "local_users" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "local_users_role" CHECK ("role" IN ('admin', 'reader')),
    CONSTRAINT "local_users_name_not_empty" CHECK (length("name") > 0)
);

-- CreateTable
CREATE TABLE "local_tokens" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "last_used_at" DATETIME,
    "revoked_at" DATETIME,
    CONSTRAINT "local_tokens_kind" CHECK ("kind" IN ('api', 'session')),
    CONSTRAINT "local_tokens_api_named" CHECK ("kind" <> 'api' OR "name" IS NOT NULL),
    CONSTRAINT "local_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "local_users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "local_users_name_key" ON "local_users"("name");

-- CreateIndex
CREATE UNIQUE INDEX "local_tokens_token_hash_key" ON "local_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "local_tokens_user_id_idx" ON "local_tokens"("user_id");
