// Which policy rules a CloudKitty REST request needs, decided from its method and path before
// routing, as CloudKitty decides them in its controllers. `null`: no rule beyond a valid token
// (the route answers 404 or 405 by itself).

const MODULE_CONFIG = /^\/v1\/rating\/module_config(\/|$)/i;
const MODULES = /^\/v1\/rating\/modules$/i;
const MODULE = /^\/v1\/rating\/modules\/[^/]+$/i;
const RELOAD_MODULES = /^\/v1\/rating\/reload_modules$/i;
const QUOTE = /^\/v1\/rating\/quote$/i;
const PREVIEW = /^\/v1\/rating\/module_config\/hashmap\/preview$/i;
const INFO_CONFIG = /^\/v1\/info\/config$/i;
const INFO_METRICS = /^\/v1\/info\/(metrics|services)$/i;
const INFO_METRIC = /^\/v1\/info\/(metrics|services)\/[^/]+$/i;
const AUDIT = /^\/v1\/ratecard\/audit$/i;
const WARNING_ACKNOWLEDGEMENT = /^\/v1\/ratecard\/warnings\/[^/]+\/acknowledgement$/i;
const RULESET = /^\/v1\/ratecard\/ruleset(\/plan)?$/i;
const RULESET_APPLY = /^\/v1\/ratecard\/ruleset\/apply$/i;
const TARGETS = /^\/v1\/ratecard\/targets(\/|$)/i;

/** The rules a request must pass, in order (the first refused one is named in the 403). */
export function restRules(method: string, path: string): string[] {
  if (MODULE_CONFIG.test(path)) {
    // CloudKitty checks rating:module_config for the whole subtree before routing (a refused PUT
    // is a 403, not a 405). The preview is Ratecard's own and has its own rule on top.
    return PREVIEW.test(path)
      ? ["rating:module_config", "ratecard:preview"]
      : ["rating:module_config"];
  }
  // PUT on the collection carries the module's id in the query or the body (the REST layer moves it
  // onto the item route after this check), so it needs the item's rule here.
  if (MODULES.test(path)) {
    if (method === "GET") return ["rating:list_modules"];
    if (method === "PUT") return ["rating:update_module"];
    return [];
  }
  if (MODULE.test(path)) {
    if (method === "GET") return ["rating:get_module"];
    if (method === "PUT") return ["rating:update_module"];
    return [];
  }
  if (RELOAD_MODULES.test(path)) return method === "GET" ? ["rating:module_config"] : [];
  if (QUOTE.test(path)) return method === "POST" ? ["rating:quote"] : [];
  if (INFO_CONFIG.test(path)) return ["info:get_config"];
  // /v1/info/services is CloudKitty's deprecated alias of /v1/info/metrics, checked with its rules.
  if (INFO_METRICS.test(path)) return ["info:list_metrics_info"];
  if (INFO_METRIC.test(path)) return ["info:get_metric_info"];
  if (AUDIT.test(path)) return ["ratecard:read_audit"];
  if (WARNING_ACKNOWLEDGEMENT.test(path))
    return method === "PUT" || method === "DELETE" ? ["ratecard:acknowledge_warnings"] : [];
  if (RULESET.test(path)) return ["ratecard:export_ruleset"];
  if (RULESET_APPLY.test(path)) return ["ratecard:apply_ruleset"];
  // Targets hold CloudKitty credentials: every method on the whole subtree, reads included.
  if (TARGETS.test(path)) return ["ratecard:manage_targets"];
  return [];
}
