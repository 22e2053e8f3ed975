/**
 * CloudKitty's registered policy defaults (cloudkitty/common/policies/, master of 2026-06), as
 * oslo.policy enforces them with its current defaults: `enforce_new_defaults` is on, so the
 * deprecated `admin_or_owner` alternatives of the `project_*` rules are not OR'd in.
 */
export const CLOUDKITTY_DEFAULT_RULES: Record<string, string> = {
  // base.py
  context_is_admin: "role:admin",
  admin_or_owner:
    "is_admin:True or (role:admin and is_admin_project:True) or project_id:%(project_id)s",
  default: "",
  project_member_api: "role:member and project_id:%(project_id)s",
  project_reader_api: "role:reader and project_id:%(project_id)s",
  project_member_or_admin: "rule:project_member_api or rule:context_is_admin",
  project_reader_or_admin: "rule:project_reader_api or rule:context_is_admin",
  // v1/collector.py
  "collector:list_mappings": "role:admin",
  "collector:get_mapping": "role:admin",
  "collector:manage_mapping": "role:admin",
  "collector:get_state": "role:admin",
  "collector:update_state": "role:admin",
  // v1/info.py
  "info:list_services_info": "",
  "info:get_service_info": "",
  "info:list_metrics_info": "",
  "info:get_metric_info": "",
  "info:get_config": "",
  // v1/rating.py
  "rating:list_modules": "role:admin",
  "rating:get_module": "role:admin",
  "rating:update_module": "role:admin",
  "rating:quote": "",
  "rating:module_config": "role:admin",
  // v1/report.py
  "report:list_tenants": "role:admin",
  "report:get_summary": "rule:project_reader_or_admin",
  "report:get_total": "rule:project_reader_or_admin",
  // v1/storage.py
  "storage:list_data_frames": "rule:project_reader_or_admin",
  // v2/dataframes.py
  "dataframes:add": "role:admin",
  "dataframes:get": "rule:project_reader_or_admin",
  // v2/rating.py
  "v2_rating:list_modules": "role:admin",
  "v2_rating:get_module": "role:admin",
  "v2_rating:update_module": "role:admin",
  // v2/scope.py
  "scope:get_state": "role:admin",
  "scope:reset_state": "role:admin",
  "scope:patch_state": "role:admin",
  "scope:post_state": "role:admin",
  // v2/summary.py
  "summary:get_summary": "rule:project_reader_or_admin",
  // v2/tasks.py
  "schedule:task_reprocesses": "role:admin",
  "schedule:get_task_reprocesses": "role:admin",
};

const ratecardRules = {
  "ratecard:read_rules": "role:reader or rule:rating:module_config",
  "ratecard:preview": "rule:ratecard:read_rules",
  "ratecard:warnings": "rule:ratecard:read_rules",
  "ratecard:acknowledge_warnings": "rule:rating:module_config",
  "ratecard:manage_accounts": "role:admin",
  "ratecard:list_metrics": "rule:info:list_metrics_info",
  "ratecard:read_audit": "role:admin",
  "ratecard:export_ruleset": "rule:ratecard:read_rules",
  "ratecard:manage_targets": "role:admin",
  "ratecard:apply_ruleset": "role:admin",
} as const satisfies Record<string, string>;

/** Rules for what Ratecard adds to CloudKitty's API; they default to CloudKitty's rules for the same data. */
export const RATECARD_DEFAULT_RULES: Record<string, string> = ratecardRules;

/** CloudKitty's defaults and Ratecard's, the rule set a policy file is laid over. */
export const DEFAULT_RULES: Record<string, string> = {
  ...CLOUDKITTY_DEFAULT_RULES,
  ...RATECARD_DEFAULT_RULES,
};

/** One line per Ratecard rule, for the README and the policy reference. */
export const RULE_DESCRIPTIONS: Record<keyof typeof ratecardRules, string> = {
  "ratecard:read_rules":
    "Read the rating rules from the console (services, fields, groups, mappings, thresholds, scripts, modules) over RPC.",
  "ratecard:preview": "Preview a price with the current rules, explained per group.",
  "ratecard:warnings": "List the rules that price nothing or that another rule silently beats.",
  "ratecard:acknowledge_warnings":
    "Acknowledge a warning as intended, with a note, or withdraw that (as writing rules, by default).",
  "ratecard:manage_accounts": "Manage local users and the API tokens of other users.",
  "ratecard:list_metrics":
    "List the metrics from the metrics file, which the console suggests as service names.",
  "ratecard:read_audit":
    "Read the audit trail: every change to every resource, with who made it and the data before and after.",
  "ratecard:export_ruleset":
    "Export the whole rule set as one document, and plan the changes a document would make (reads only).",
  "ratecard:manage_targets":
    "Register, read, change, probe and delete CloudKitty targets, and import a target's rules into Ratecard.",
  "ratecard:apply_ruleset":
    "Apply a rule-set document: every change its plan lists, in one transaction (rules kept in git made live).",
};
