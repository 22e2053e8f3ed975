-- Ratecard's whole schema on PostgreSQL, equal to the SQLite history (prisma/migrations) up to
-- 20261125160000_accounts_generation. The tables and plain indexes were written with
-- `prisma migrate diff --from-empty --to-schema-datamodel prisma/postgresql/schema.prisma --script`;
-- everything after "Hand-written" is what Prisma cannot express: carry it over whenever these
-- tables are recreated. Each rule below is the SQLite migrations' rule, with the same name.

-- CreateTable
CREATE TABLE "hashmap_services" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hashmap_services_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "hashmap_fields" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hashmap_fields_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "hashmap_groups" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hashmap_groups_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "hashmap_mappings" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "value" TEXT,
    "type" TEXT NOT NULL DEFAULT 'flat',
    "cost" TEXT NOT NULL,
    "service_id" TEXT,
    "field_id" TEXT,
    "group_id" TEXT,
    "tenant_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hashmap_mappings_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "hashmap_thresholds" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "level" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'flat',
    "cost" TEXT NOT NULL,
    "service_id" TEXT,
    "field_id" TEXT,
    "group_id" TEXT,
    "tenant_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hashmap_thresholds_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "pyscripts_scripts" (
    "seq" SERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "checksum" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pyscripts_scripts_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "rating_modules" (
    "module_id" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "hot_config" BOOLEAN NOT NULL,
    "priority" INTEGER NOT NULL,

    CONSTRAINT "rating_modules_pkey" PRIMARY KEY ("module_id")
);

-- CreateTable
CREATE TABLE "local_users" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "local_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "local_tokens" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "local_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "local_accounts_generation" (
    "id" INTEGER NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "local_accounts_generation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_services_id_key" ON "hashmap_services"("id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_services_name_key" ON "hashmap_services"("name");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_fields_id_key" ON "hashmap_fields"("id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_fields_service_id_name_key" ON "hashmap_fields"("service_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_groups_id_key" ON "hashmap_groups"("id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_groups_name_key" ON "hashmap_groups"("name");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_mappings_id_key" ON "hashmap_mappings"("id");

-- CreateIndex
CREATE INDEX "hashmap_mappings_service_id_idx" ON "hashmap_mappings"("service_id");

-- CreateIndex
CREATE INDEX "hashmap_mappings_field_id_idx" ON "hashmap_mappings"("field_id");

-- CreateIndex
CREATE INDEX "hashmap_mappings_group_id_idx" ON "hashmap_mappings"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "hashmap_thresholds_id_key" ON "hashmap_thresholds"("id");

-- CreateIndex
CREATE INDEX "hashmap_thresholds_service_id_idx" ON "hashmap_thresholds"("service_id");

-- CreateIndex
CREATE INDEX "hashmap_thresholds_field_id_idx" ON "hashmap_thresholds"("field_id");

-- CreateIndex
CREATE INDEX "hashmap_thresholds_group_id_idx" ON "hashmap_thresholds"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "pyscripts_scripts_id_key" ON "pyscripts_scripts"("id");

-- CreateIndex
CREATE UNIQUE INDEX "pyscripts_scripts_name_key" ON "pyscripts_scripts"("name");

-- CreateIndex
CREATE UNIQUE INDEX "local_users_name_key" ON "local_users"("name");

-- CreateIndex
CREATE UNIQUE INDEX "local_tokens_token_hash_key" ON "local_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "local_tokens_user_id_idx" ON "local_tokens"("user_id");

-- AddForeignKey
ALTER TABLE "hashmap_fields" ADD CONSTRAINT "hashmap_fields_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "hashmap_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hashmap_mappings" ADD CONSTRAINT "hashmap_mappings_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "hashmap_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hashmap_mappings" ADD CONSTRAINT "hashmap_mappings_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "hashmap_fields"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hashmap_mappings" ADD CONSTRAINT "hashmap_mappings_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "hashmap_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hashmap_thresholds" ADD CONSTRAINT "hashmap_thresholds_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "hashmap_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hashmap_thresholds" ADD CONSTRAINT "hashmap_thresholds_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "hashmap_fields"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hashmap_thresholds" ADD CONSTRAINT "hashmap_thresholds_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "hashmap_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "local_tokens" ADD CONSTRAINT "local_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "local_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: the CHECKs of the SQLite tables. SQLite's GLOB '*[0-9].[0-9]{n}' (written out
-- digit by digit there) is the regular expression '[0-9]\.[0-9]{n}$' here: anything, a digit, a
-- dot and exactly n fractional digits at the end.
ALTER TABLE "hashmap_mappings"
    ADD CONSTRAINT "hashmap_mappings_one_parent" CHECK (("service_id" IS NULL) <> ("field_id" IS NULL)),
    ADD CONSTRAINT "hashmap_mappings_type" CHECK ("type" IN ('flat', 'rate')),
    ADD CONSTRAINT "hashmap_mappings_cost_canonical" CHECK ("cost" ~ '[0-9]\.[0-9]{28}$');

ALTER TABLE "hashmap_thresholds"
    ADD CONSTRAINT "hashmap_thresholds_one_parent" CHECK (("service_id" IS NULL) <> ("field_id" IS NULL)),
    ADD CONSTRAINT "hashmap_thresholds_type" CHECK ("type" IN ('flat', 'rate')),
    ADD CONSTRAINT "hashmap_thresholds_cost_canonical" CHECK ("cost" ~ '[0-9]\.[0-9]{28}$'),
    ADD CONSTRAINT "hashmap_thresholds_level_canonical" CHECK ("level" ~ '[0-9]\.[0-9]{8}$' AND "level" !~ '\..*\.');

ALTER TABLE "local_users"
    ADD CONSTRAINT "local_users_role" CHECK ("role" IN ('admin', 'reader')),
    ADD CONSTRAINT "local_users_name_not_empty" CHECK (length("name") > 0);

ALTER TABLE "local_tokens"
    ADD CONSTRAINT "local_tokens_kind" CHECK ("kind" IN ('api', 'session')),
    ADD CONSTRAINT "local_tokens_api_named" CHECK ("kind" <> 'api' OR "name" IS NOT NULL);

ALTER TABLE "local_accounts_generation"
    ADD CONSTRAINT "local_accounts_generation_one_row" CHECK ("id" = 1);

-- Rule identity (see prisma/models.prisma): identical rules collide even when tenant or group is
-- NULL. A service mapping's value "" and NULL both mean "no value".
CREATE UNIQUE INDEX "hashmap_mappings_identity" ON "hashmap_mappings" (
    COALESCE("service_id", ''), COALESCE("field_id", ''), COALESCE("value", ''),
    COALESCE("tenant_id", ''), COALESCE("group_id", '')
);

CREATE UNIQUE INDEX "hashmap_thresholds_identity" ON "hashmap_thresholds" (
    COALESCE("service_id", ''), COALESCE("field_id", ''), "level",
    COALESCE("tenant_id", ''), COALESCE("group_id", '')
);

-- CloudKitty's rating modules. Ratecard configures hashmap and pyscripts, so both start enabled.
INSERT INTO "rating_modules" ("module_id", "description", "enabled", "hot_config", "priority") VALUES
    ('hashmap', 'HashMap rating module.', true, true, 1),
    ('noop', 'Dummy test module.', false, false, 1),
    ('pyscripts', 'PyScripts rating module.', true, true, 1);

-- A counter that every change to local users and tokens moves, in any process: authenticators keep
-- a token's verdict until it moves. Moved once per transaction, at its commit, by deferred
-- constraint triggers (SQLite's move it per row, at once): the single row's lock is then taken
-- after every other lock and held only for the commit, so two transactions on the same user (a
-- password change revoking sessions, a role change) cannot deadlock on it. See
-- "ratecard_data_version" below for the same reasoning.
INSERT INTO "local_accounts_generation" ("id", "generation") VALUES (1, 0);

CREATE FUNCTION "local_accounts_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'ROW' AND current_setting('ratecard.local_accounts_moved', true) = 'yes' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('ratecard.local_accounts_moved', 'yes', true);
    UPDATE "local_accounts_generation" SET "generation" = "generation" + 1 WHERE "id" = 1;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "local_users_changed" AFTER INSERT OR UPDATE OR DELETE ON "local_users"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "local_accounts_changed"();
CREATE CONSTRAINT TRIGGER "local_tokens_changed" AFTER INSERT OR UPDATE OR DELETE ON "local_tokens"
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "local_accounts_changed"();
CREATE TRIGGER "local_users_truncated" AFTER TRUNCATE ON "local_users"
    FOR EACH STATEMENT EXECUTE FUNCTION "local_accounts_changed"();
CREATE TRIGGER "local_tokens_truncated" AFTER TRUNCATE ON "local_tokens"
    FOR EACH STATEMENT EXECUTE FUNCTION "local_accounts_changed"();

-- PostgreSQL has no PRAGMA data_version: the database's version is the sum of these counters,
-- moved once by every transaction that changes a table, as it commits, so that a new version
-- becomes visible exactly when the write does (a sequence would move before the commit, and a
-- cache could keep the old rows under the new version). Sixteen rows, chosen by the writing
-- connection's process id, so that concurrent writers rarely wait for one another's row.
-- The triggers are deferred constraint triggers: a transaction takes its counter's row lock at
-- commit, after every other lock it needs, and holds it only for the commit, so the counter can
-- never close a deadlock cycle (a cascade delete on one connection and an insert beneath it on
-- another would otherwise each wait for the other's locks). A transaction-local setting makes
-- the first changed row of a transaction move the counter, and the others return at once.
-- Not a Prisma model: only packages/db reads it (one query, see src/postgresql.ts).
CREATE TABLE "ratecard_data_version" (
    "shard" INTEGER NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "ratecard_data_version_pkey" PRIMARY KEY ("shard"),
    CONSTRAINT "ratecard_data_version_shards" CHECK ("shard" BETWEEN 0 AND 15)
);

INSERT INTO "ratecard_data_version" ("shard") SELECT generate_series(0, 15);

CREATE FUNCTION "ratecard_data_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'ROW' AND current_setting('ratecard.data_version_moved', true) = 'yes' THEN
        RETURN NULL;
    END IF;
    PERFORM set_config('ratecard.data_version_moved', 'yes', true);
    UPDATE "ratecard_data_version" SET "version" = "version" + 1 WHERE "shard" = pg_backend_pid() % 16;
    RETURN NULL;
END;
$$;

DO $$
DECLARE
    name TEXT;
BEGIN
    FOREACH name IN ARRAY ARRAY['hashmap_services', 'hashmap_fields', 'hashmap_groups',
        'hashmap_mappings', 'hashmap_thresholds', 'pyscripts_scripts', 'rating_modules',
        'local_users', 'local_tokens']
    LOOP
        EXECUTE format('CREATE CONSTRAINT TRIGGER "ratecard_data_changed" AFTER INSERT OR UPDATE OR DELETE ON %I '
            'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "ratecard_data_changed"()', name);
        -- TRUNCATE has no rows (and no constraint triggers); it locks the whole table anyway.
        EXECUTE format('CREATE TRIGGER "ratecard_data_truncated" AFTER TRUNCATE ON %I '
            'FOR EACH STATEMENT EXECUTE FUNCTION "ratecard_data_changed"()', name);
    END LOOP;
END;
$$;
