import { clientProvider, type PrismaClient } from "@ratecard/db";
import {
  ZRuleWindowInput,
  type TRuleType,
  type TRuleWindow,
  type TRuleWindowInput,
  type TRuleWindowRow,
  type TRuleWindowSort,
} from "@ratecard/validators";
import type { z } from "zod";
import { renderLifecycle } from "./lifecycle.js";

// One window of a console rule list (console.rules): the mappings and thresholds that match the
// filters, counted, sorted and cut to `offset`/`limit` by the database, so that a list of 10,000
// rules costs the browser the rows it shows. One SQL text serves SQLite and PostgreSQL; the few
// differences (placeholders, moments, collation) are parameters of the builder below. Each
// statement begins with SELECT: on PostgreSQL any other raw statement counts as a write and moves
// the data version, which would empty the read snapshot (packages/db/src/postgresql.ts).
//
// Costs and levels are stored as canonical fixed-digit text ("12.5000…", 28 or 8 fractional
// digits, no leading zeros), so their numeric order is exact without a cast: the sign first, then
// the length of the text (the integer digits), then the text itself (reversed for negatives).

type Input = z.output<typeof ZRuleWindowInput>;

/** Parameters in the order the SQL text names them, with the provider's placeholders. */
class Sql {
  readonly params: unknown[] = [];
  constructor(private readonly postgres: boolean) {}

  param(value: unknown): string {
    this.params.push(value);
    return this.postgres ? `$${this.params.length}` : "?";
  }

  /**
   * A moment compared with the DateTime columns: PostgreSQL's TIMESTAMP(3) holds UTC without an
   * offset; Prisma's SQLite text is ISO 8601 with milliseconds and "+00:00", which compares
   * correctly as text against text of the same form.
   */
  moment(date: Date): string {
    const iso = date.toISOString();
    return this.postgres
      ? `CAST(${this.param(iso.slice(0, 23).replace("T", " "))} AS TIMESTAMP(3))`
      : this.param(iso.replace("Z", "+00:00"));
  }

  /** Byte order on both databases (PostgreSQL's default collation may follow a locale). */
  get collate(): string {
    return this.postgres ? ` COLLATE "C"` : "";
  }
}

/** `text` as a LIKE pattern that matches it anywhere, in lower case, with \ escaping. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

function like(sql: Sql, expression: string, text: string): string {
  return `LOWER(${expression}) LIKE ${sql.param(containsPattern(text))} ESCAPE '\\'`;
}

/** The WHERE of one table's branch (alias r), from the filters that are columns of the rule. */
function branchWhere(sql: Sql, input: Input, at: Date): string {
  const and: string[] = [];
  if (input.ids !== undefined)
    and.push(`r."id" IN (${input.ids.map((id) => sql.param(id)).join(", ")})`);
  if (input.service_id !== undefined) and.push(`r."service_id" = ${sql.param(input.service_id)}`);
  if (input.field_id !== undefined) and.push(`r."field_id" = ${sql.param(input.field_id)}`);
  if (input.group_id !== undefined) and.push(`r."group_id" = ${sql.param(input.group_id)}`);
  if (input.no_group) and.push(`r."group_id" IS NULL`);
  if (input.no_tenant) and.push(`r."tenant_id" IS NULL`);
  else if (input.tenant_id !== undefined) and.push(`r."tenant_id" = ${sql.param(input.tenant_id)}`);
  if (input.type !== undefined) and.push(`r."type" = ${sql.param(input.type)}`);
  if (input.created_by !== undefined) and.push(`r."created_by" = ${sql.param(input.created_by)}`);
  if (input.description !== undefined)
    and.push(`r."description" IS NOT NULL AND ${like(sql, `r."description"`, input.description)}`);
  // As the console judges a rule (rule-form.ts ruleStatus): an end reached first, then a start
  // not reached yet.
  const ended = () => `(r."end" IS NOT NULL AND r."end" <= ${sql.moment(at)})`;
  switch (input.status) {
    case "deleted":
      and.push(`r."deleted" IS NOT NULL`);
      break;
    case "ended":
      and.push(`r."deleted" IS NULL`, ended());
      break;
    case "scheduled":
      and.push(`r."deleted" IS NULL`, `NOT ${ended()}`, `r."start" > ${sql.moment(at)}`);
      break;
    case "in_force":
      and.push(`r."deleted" IS NULL`, `NOT ${ended()}`, `r."start" <= ${sql.moment(at)}`);
      break;
    default:
      and.push(`r."deleted" IS NULL`);
  }
  return and.join(" AND ");
}

/** One table's rules with the names a list shows, as the columns of the `rules` subquery. */
function branch(sql: Sql, kind: "mapping" | "threshold", input: Input, at: Date): string {
  const table = kind === "mapping" ? "hashmap_mappings" : "hashmap_thresholds";
  const match =
    kind === "mapping"
      ? `CASE WHEN r."field_id" IS NULL THEN '' ELSE COALESCE(r."value", '') END`
      : `r."level"`;
  return `SELECT '${kind}' AS kind, r."id" AS id, r."seq" AS seq, ${match} AS match_text,
      r."type" AS rule_type, r."cost" AS cost, COALESCE(r."tenant_id", '') AS tenant,
      CASE WHEN r."field_id" IS NULL THEN COALESCE(s."name", '')
        ELSE COALESCE(fs."name", '') || ' › ' || COALESCE(f."name", '') END AS attached,
      COALESCE(g."name", '') AS group_name
    FROM "${table}" r
      LEFT JOIN "hashmap_services" s ON s."id" = r."service_id"
      LEFT JOIN "hashmap_fields" f ON f."id" = r."field_id"
      LEFT JOIN "hashmap_services" fs ON fs."id" = f."service_id"
      LEFT JOIN "hashmap_groups" g ON g."id" = r."group_id"
    WHERE ${branchWhere(sql, input, at)}`;
}

/** The free-text search over the columns a list shows (the console's former haystack). */
function searchWhere(sql: Sql, q: string | undefined): string {
  const needle = q?.trim();
  if (!needle) return "";
  const columns = ["attached", "match_text", "group_name", "tenant", "cost", "rule_type", "kind"];
  // One parameter per use: SQLite's "?" placeholders are positional.
  return `WHERE ${columns.map((column) => like(sql, column, needle)).join(" OR ")}`;
}

type Direction = "ASC" | "DESC";
const flip = (direction: Direction): Direction => (direction === "ASC" ? "DESC" : "ASC");

/** ORDER BY terms that sort a canonical fixed-digit decimal column by value. */
function decimalOrder(expression: string, direction: Direction, collate: string): string[] {
  const negative = `${expression} LIKE '-%'`;
  return [
    `CASE WHEN ${negative} THEN 0 ELSE 1 END ${direction}`,
    `CASE WHEN ${negative} THEN -LENGTH(${expression}) ELSE LENGTH(${expression}) END ${direction}`,
    `CASE WHEN ${negative} THEN ${expression} ELSE '' END${collate} ${flip(direction)}`,
    `CASE WHEN ${negative} THEN '' ELSE ${expression} END${collate} ${direction}`,
  ];
}

function orderBy(sql: Sql, sort: TRuleWindowSort | undefined, desc: boolean): string {
  const direction: Direction = desc ? "DESC" : "ASC";
  const text = (expression: string) => [
    `LOWER(${expression})${sql.collate} ${direction}`,
    `${expression}${sql.collate} ${direction}`,
  ];
  let terms: string[];
  switch (sort) {
    case undefined:
      terms = [];
      break;
    case "cost":
      terms = decimalOrder("cost", direction, sql.collate);
      break;
    case "match":
      // Mapping values as text, threshold levels as numbers; with both kinds, mappings first.
      terms = [
        `kind ${direction}`,
        ...text(`CASE WHEN kind = 'mapping' THEN match_text ELSE '' END`),
        ...decimalOrder(
          `CASE WHEN kind = 'threshold' THEN match_text ELSE '0' END`,
          direction,
          sql.collate,
        ),
      ];
      break;
    case "kind":
      terms = [`kind ${direction}`];
      break;
    case "type":
      terms = [`rule_type ${direction}`];
      break;
    case "attachedTo":
      terms = text("attached");
      break;
    case "groupName":
      terms = text("group_name");
      break;
    case "tenant":
      terms = text("tenant");
      break;
  }
  // The same rules always come in the same order, so windows neither repeat nor skip a rule.
  return [...terms, "kind ASC", "seq ASC"].join(", ");
}

type RuleRecord = {
  id: string;
  type: string;
  cost: string;
  serviceId: string | null;
  fieldId: string | null;
  groupId: string | null;
  tenantId: string | null;
  revision: number;
  service: { name: string } | null;
  field: { name: string; service: { name: string } } | null;
  group: { name: string } | null;
} & Parameters<typeof renderLifecycle>[0];

function renderRow(
  kind: "mapping" | "threshold",
  rule: RuleRecord,
  value: string | null,
  level: string | null,
): TRuleWindowRow {
  const life = renderLifecycle(rule);
  return {
    kind,
    id: rule.id,
    value,
    level,
    type: rule.type as TRuleType,
    cost: rule.cost,
    service_id: rule.serviceId,
    field_id: rule.fieldId,
    group_id: rule.groupId,
    tenant_id: rule.tenantId,
    service_name: rule.service?.name ?? rule.field?.service.name ?? "",
    field_name: rule.field?.name ?? null,
    group_name: rule.group?.name ?? null,
    revision: rule.revision,
    start: life.start,
    end: life.end,
    name: life.name,
    description: life.description,
    deleted: life.deleted,
    created_by: life.created_by,
    deleted_by: life.deleted_by,
  };
}

const withNames = {
  service: { select: { name: true } },
  field: { select: { name: true, service: { select: { name: true } } } },
  group: { select: { name: true } },
} as const;

/** The rules of one window (or any rules by kind and id) as list rows, in the order given. */
export async function loadRows(
  prisma: PrismaClient,
  page: { kind: string; id: string }[],
): Promise<TRuleWindowRow[]> {
  const ids = (kind: string) => page.filter((row) => row.kind === kind).map((row) => row.id);
  const mappingIds = ids("mapping");
  const thresholdIds = ids("threshold");
  const [mappings, thresholds] = await Promise.all([
    mappingIds.length
      ? prisma.mapping.findMany({ where: { id: { in: mappingIds } }, include: withNames })
      : [],
    thresholdIds.length
      ? prisma.threshold.findMany({ where: { id: { in: thresholdIds } }, include: withNames })
      : [],
  ]);
  const rendered = new Map<string, TRuleWindowRow>();
  for (const rule of mappings)
    rendered.set(`mapping:${rule.id}`, renderRow("mapping", rule, rule.value, null));
  for (const rule of thresholds)
    rendered.set(`threshold:${rule.id}`, renderRow("threshold", rule, null, rule.level));
  // A rule hard-deleted between the two reads (a cascade) is left out of the window.
  return page.flatMap((row) => rendered.get(`${row.kind}:${row.id}`) ?? []);
}

/** Where one rule stands in the sorted list (ROW_NUMBER over the same order), or null. */
async function positionOf(
  prisma: PrismaClient,
  query: { sql: Sql; rules: string; where: string },
  input: Input,
  find: { kind: string; id: string },
): Promise<number | null> {
  const order = orderBy(query.sql, input.sort, input.desc ?? false);
  const kind = query.sql.param(find.kind);
  const id = query.sql.param(find.id);
  const found = await prisma.$queryRawUnsafe<{ position: number | bigint }[]>(
    `SELECT position FROM (
      SELECT kind, id, ROW_NUMBER() OVER (ORDER BY ${order}) - 1 AS position
      FROM ${query.rules} ${query.where}) ranked
    WHERE kind = ${kind} AND id = ${id}`,
    ...query.sql.params,
  );
  return found[0] === undefined ? null : Number(found[0].position);
}

/** console.rules: the total matching the filters and the window `offset`..`offset+limit`. */
export async function ruleWindow(
  prisma: PrismaClient,
  raw: TRuleWindowInput | Input,
): Promise<TRuleWindow> {
  const input = ZRuleWindowInput.parse(raw);
  const at = input.at ? new Date(input.at) : new Date();
  const postgres = clientProvider(prisma) === "postgresql";

  const build = () => {
    const sql = new Sql(postgres);
    const kinds = input.kind ? [input.kind] : (["mapping", "threshold"] as const);
    const rules = kinds.map((kind) => branch(sql, kind, input, at)).join("\nUNION ALL\n");
    return { sql, rules: `(${rules}) rules`, where: searchWhere(sql, input.q) };
  };

  const counted = build();
  const pageQuery = build();
  const order = orderBy(pageQuery.sql, input.sort, input.desc ?? false);
  const limit = pageQuery.sql.param(input.limit);
  const offset = pageQuery.sql.param(input.offset);
  const [countRows, page] = await Promise.all([
    prisma.$queryRawUnsafe<{ total: number | bigint }[]>(
      `SELECT COUNT(*) AS total FROM ${counted.rules} ${counted.where}`,
      ...counted.sql.params,
    ),
    prisma.$queryRawUnsafe<{ kind: string; id: string }[]>(
      `SELECT kind, id FROM ${pageQuery.rules} ${pageQuery.where}
        ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
      ...pageQuery.sql.params,
    ),
  ]);
  return {
    total: Number(countRows[0]?.total ?? 0),
    offset: input.offset,
    rows: await loadRows(prisma, page),
    ...(input.find && { position: await positionOf(prisma, build(), input, input.find) }),
  };
}
