// Which policy rule each RPC procedure needs. Fails closed: a procedure this table does not place
// stops the server at start (see assertEveryProcedureHasARule), so a new procedure cannot ship
// unprotected by accident.

type ProcedureType = "query" | "mutation" | "subscription";

/** A rule name, or `null` for "any authenticated caller" (the procedure checks ownership itself). */
export function rpcRule(path: string, type: ProcedureType): string | null | undefined {
  if (path.startsWith("accounts.users.")) return "ratecard:manage_accounts";
  if (path.startsWith("accounts.tokens.")) return null;
  if (path.startsWith("audit.")) return "ratecard:read_audit";
  if (path === "ruleset.export" || path === "ruleset.plan") return "ratecard:export_ruleset";
  if (path === "ruleset.applyDocument") return "ratecard:apply_ruleset";
  if (path.startsWith("targets.")) return "ratecard:manage_targets";
  if (path === "hashmap.preview") return "ratecard:preview";
  // The warnings panel by scope answers what hashmap.warnings answers: the same rule.
  if (path === "hashmap.warnings" || path === "console.warnings") return "ratecard:warnings";
  if (path.startsWith("warnings.")) return "ratecard:acknowledge_warnings";
  if (path === "rating.quote") return "rating:quote";
  if (path.startsWith("info.")) return "ratecard:list_metrics";
  if (path.startsWith("modules."))
    return type === "query" ? "ratecard:read_rules" : "rating:update_module";
  if (/^(hashmap|pyscripts|console)\./.test(path))
    return type === "query" ? "ratecard:read_rules" : "rating:module_config";
  return undefined;
}

export function assertEveryProcedureHasARule(
  procedures: Record<string, { _def: { type: ProcedureType } }>,
): void {
  const unplaced = Object.entries(procedures)
    .filter(([path, procedure]) => rpcRule(path, procedure._def.type) === undefined)
    .map(([path]) => path);
  if (unplaced.length > 0)
    throw new Error(
      `No policy rule for the RPC procedures ${unplaced.join(", ")} (edge/rpc-rules.ts)`,
    );
}
