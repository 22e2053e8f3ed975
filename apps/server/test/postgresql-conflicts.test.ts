import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryDatabase } from "./support/database.js";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// PostgreSQL gives up one of two colliding transactions with a serialization failure (40001) or a
// deadlock (40P01), and expects the loser to be run again. Ratecard's writes rarely collide (READ
// COMMITTED, counters moved by deferred triggers), so the collision is injected: a trigger on the
// groups table raises the SQLSTATE for the first N attempts, counted by a sequence, which a
// rollback does not reset. Only with RATECARD_TEST_DATABASE=postgresql (the CI's second run of the
// suite): SQLite has one writer at a time and no such failure.

const GROUPS = `${HASHMAP}/groups`;
/** The middleware's CONFLICT_ATTEMPTS: a request runs at most this often. */
const ATTEMPTS = 3;

describe.runIf(process.env.RATECARD_TEST_DATABASE === "postgresql")(
  "serialization failures and deadlocks on PostgreSQL",
  () => {
    let server: TestServer;
    let api: Client;
    const sql = (text: string) => queryDatabase(server.databasePath, text);

    /** The next `failures` attempts on a `conflict-` group fail with `sqlstate`. */
    const injectConflicts = (failures: number, sqlstate: string) => {
      sql(`UPDATE conflict_plan SET failures = ${failures}, sqlstate = '${sqlstate}';
        SELECT setval('conflict_attempts', 1, false);`);
    };
    /** How many attempts reached the trigger since injectConflicts. */
    const attempts = () =>
      Number(sql(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM conflict_attempts`));

    beforeAll(async () => {
      server = await startServer();
      api = createClient(server.baseUrl);
      sql(`
        CREATE TABLE conflict_plan (failures int NOT NULL, sqlstate text NOT NULL);
        INSERT INTO conflict_plan VALUES (0, '40001');
        CREATE SEQUENCE conflict_attempts;
        CREATE FUNCTION conflict_injected() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF nextval('conflict_attempts') <= (SELECT failures FROM conflict_plan) THEN
            RAISE EXCEPTION 'injected conflict'
              USING ERRCODE = (SELECT sqlstate FROM conflict_plan);
          END IF;
          RETURN COALESCE(NEW, OLD);
        END $$;
        CREATE TRIGGER conflict_on_insert BEFORE INSERT ON hashmap_groups
          FOR EACH ROW WHEN (NEW.name LIKE 'conflict-%') EXECUTE FUNCTION conflict_injected();
        CREATE TRIGGER conflict_on_delete BEFORE DELETE ON hashmap_groups
          FOR EACH ROW WHEN (OLD.name LIKE 'conflict-%') EXECUTE FUNCTION conflict_injected();
      `);
    });
    afterAll(async () => {
      await server.stop();
    });
    beforeEach(() => injectConflicts(0, "40001"));

    it.each([
      ["a serialization failure", "40001"],
      ["a deadlock", "40P01"],
    ])("a create that loses %s is run again and answers 201", async (_, sqlstate) => {
      const name = uniqueName("conflict");
      injectConflicts(ATTEMPTS - 1, sqlstate);
      const created = await api.post(GROUPS, { name });
      expect(created.status).toBe(201);
      expect(attempts()).toBe(ATTEMPTS);
      const { body } = await api.get(GROUPS);
      expect(body.groups.filter((group: { name: string }) => group.name === name)).toEqual([
        created.body,
      ]);
    });

    it("a delete whose transaction loses a conflict is run again as a whole", async () => {
      // A group delete is one interactive transaction (its rules are checked, then it goes).
      const created = await api.post(GROUPS, { name: uniqueName("conflict") });
      injectConflicts(1, "40001");
      const deleted = await api.delete(`${GROUPS}/${created.body.group_id}`);
      expect(deleted.status).toBe(204);
      expect(attempts()).toBe(2);
      expect((await api.get(`${GROUPS}/${created.body.group_id}`)).status).toBe(404);
    });

    it("a request that keeps losing is a 503 fault after its attempts, and nothing is written", async () => {
      const name = uniqueName("conflict");
      injectConflicts(1_000, "40001");
      const refused = await api.post(GROUPS, { name });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.body).toEqual({
        faultcode: "Server",
        faultstring: "The database is unavailable; retry later",
        debuginfo: null,
      });
      expect(attempts()).toBe(ATTEMPTS);
      const { body } = await api.get(GROUPS);
      expect(body.groups.some((group: { name: string }) => group.name === name)).toBe(false);
      // The pool is whole again: the connections of the failed attempts were given back.
      injectConflicts(0, "40001");
      for (let i = 0; i < 12; i += 1) {
        expect((await api.post(GROUPS, { name: uniqueName("conflict") })).status).toBe(201);
      }
    });
  },
);
