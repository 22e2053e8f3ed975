-- A counter that every change to local users and tokens moves, in any process: authenticators keep
-- a token's verdict until it moves, instead of re-reading the token after every rule write. The
-- triggers are hand-written (Prisma cannot express them): carry them over whenever these tables are
-- recreated.

-- CreateTable
CREATE TABLE "local_accounts_generation" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "generation" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "local_accounts_generation_one_row" CHECK ("id" = 1)
);

INSERT INTO "local_accounts_generation" ("id", "generation") VALUES (1, 0);

CREATE TRIGGER "local_users_inserted" AFTER INSERT ON "local_users"
BEGIN UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "local_users_updated" AFTER UPDATE ON "local_users"
BEGIN UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "local_users_deleted" AFTER DELETE ON "local_users"
BEGIN UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "local_tokens_inserted" AFTER INSERT ON "local_tokens"
BEGIN UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "local_tokens_updated" AFTER UPDATE ON "local_tokens"
BEGIN UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1; END;
CREATE TRIGGER "local_tokens_deleted" AFTER DELETE ON "local_tokens"
BEGIN UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1; END;
