import type { TRatingModule } from "@ratecard/validators";

// What switching a rating module or changing its priority does to prices, in CloudKitty's terms
// (see /v1/rating/modules): only enabled modules rate, the biggest priority first; hashmap adds the
// price of its rules to the price a point already has, a script may set or change any price.

export type ModuleChange = { enabled: boolean } | { priority: number };

type ModuleLike = Pick<TRatingModule, "module_id" | "enabled" | "priority">;

export interface ChangeDescription {
  /** The dialog's question: "Disable hashmap?" */
  title: string;
  /** The effect on prices, in a sentence or two. */
  effect: string;
  /** The confirm button. */
  confirmLabel: string;
  /** The notification once done: "hashmap disabled". */
  done: string;
  /** The change that puts things back as they were (the notification's Undo). */
  undo: ModuleChange;
}

/** The enabled modules in the order CloudKitty runs them: biggest priority first. */
export function processingOrder(modules: readonly ModuleLike[]): ModuleLike[] {
  return modules
    .filter((module) => module.enabled)
    .toSorted((a, b) => b.priority - a.priority || a.module_id.localeCompare(b.module_id));
}

/** "hashmap (priority 1), then pyscripts (priority 0)", or why no module rates. */
export function describeProcessingOrder(modules: readonly ModuleLike[]): string {
  const order = processingOrder(modules);
  if (order.length === 0) return "No module is enabled: CloudKitty rates every usage 0.";
  const listed = order.map((module) => `${module.module_id} (priority ${module.priority})`);
  const ties = order.some((module, index) => order[index + 1]?.priority === module.priority);
  return (
    `CloudKitty runs ${listed.join(", then ")}.` +
    (ties ? " Modules with the same priority run in no defined order." : "")
  );
}

function enableEffect(module: ModuleLike, modules: readonly ModuleLike[]): string {
  const hashmap = modules.find((candidate) => candidate.module_id === "hashmap");
  switch (module.module_id) {
    case "hashmap":
      return "Enabling hashmap: CloudKitty will price usage with the hashmap rules again, from its next rating.";
    case "pyscripts":
      return (
        "Enabling pyscripts: scripts run by CloudKitty will change prices. " +
        (hashmap?.enabled
          ? relativeOrder({ ...module, enabled: true }, hashmap)
          : "Every price will be what the scripts set.")
      );
    case "noop":
      return "Enabling noop changes no price: it rates nothing.";
    default:
      return `Enabling ${module.module_id}: CloudKitty will also rate usage with it.`;
  }
}

function disableEffect(module: ModuleLike, modules: readonly ModuleLike[]): string {
  const pyscripts = modules.find((candidate) => candidate.module_id === "pyscripts");
  switch (module.module_id) {
    case "hashmap":
      return (
        "Disabling hashmap: CloudKitty will charge 0 for everything the hashmap rules price" +
        (pyscripts?.enabled ? ", unless a script of the pyscripts module prices it." : ".")
      );
    case "pyscripts":
      return "Disabling pyscripts: CloudKitty stops running the scripts, and the prices they set or changed are no longer applied.";
    case "noop":
      return "Disabling noop changes no price: it rates nothing.";
    default:
      return `Disabling ${module.module_id}: CloudKitty stops rating usage with it.`;
  }
}

/** How hashmap and pyscripts combine in the order their priorities give. */
function relativeOrder(module: ModuleLike, other: ModuleLike): string {
  const [first, second] =
    module.priority === other.priority
      ? [null, null]
      : module.priority > other.priority
        ? [module, other]
        : [other, module];
  if (!first || !second)
    return `${module.module_id} and ${other.module_id} have the same priority (${module.priority}): CloudKitty runs them in no defined order, so the price may depend on it.`;
  return first.module_id === "pyscripts"
    ? `The scripts run before hashmap (priority ${first.priority} over ${second.priority}): hashmap then adds the price of its rules to what the scripts set.`
    : `The scripts run after hashmap (priority ${second.priority} under ${first.priority}): they see the prices of the hashmap rules and may change them.`;
}

/**
 * The enabled modules that price (noop rates nothing) in run order, those of equal priority
 * together: two orders with the same signature give the same prices.
 */
function orderSignature(modules: readonly ModuleLike[]): string {
  const order = processingOrder(modules).filter((module) => module.module_id !== "noop");
  return order
    .map((module, index) =>
      index === 0
        ? module.module_id
        : `${order[index - 1]!.priority === module.priority ? "=" : ">"}${module.module_id}`,
    )
    .join("");
}

function priorityEffect(
  module: ModuleLike,
  priority: number,
  modules: readonly ModuleLike[],
): string {
  if (!module.enabled)
    return `${module.module_id} is disabled: its priority matters only once it is enabled. No price changes now.`;
  const after = modules.map((candidate) =>
    candidate.module_id === module.module_id ? { ...candidate, priority } : candidate,
  );
  if (orderSignature(modules) === orderSignature(after))
    return "The order in which CloudKitty runs the modules that price stays the same: no price changes.";
  const changed = after.find((candidate) => candidate.module_id === module.module_id)!;
  const partner = { hashmap: "pyscripts", pyscripts: "hashmap" }[module.module_id];
  const other = after.find((candidate) => candidate.enabled && candidate.module_id === partner);
  return `With priority ${priority}: ${other ? relativeOrder(changed, other) : describeProcessingOrder(after)}`;
}

/** What the operator confirms before a module switch or a priority change, and how to undo it. */
export function describeModuleChange(
  module: ModuleLike,
  change: ModuleChange,
  modules: readonly ModuleLike[],
): ChangeDescription {
  const id = module.module_id;
  if ("enabled" in change) {
    return change.enabled
      ? {
          title: `Enable ${id}?`,
          effect: enableEffect(module, modules),
          confirmLabel: `Enable ${id}`,
          done: `${id} enabled`,
          undo: { enabled: module.enabled },
        }
      : {
          title: `Disable ${id}?`,
          effect: disableEffect(module, modules),
          confirmLabel: `Disable ${id}`,
          done: `${id} disabled`,
          undo: { enabled: module.enabled },
        };
  }
  return {
    title: `Set the priority of ${id} to ${change.priority}?`,
    effect: priorityEffect(module, change.priority, modules),
    confirmLabel: "Set priority",
    done: `Priority of ${id} set to ${change.priority}`,
    undo: { priority: module.priority },
  };
}

/** Whether the parsed priority input is a whole number the API takes. */
export function parsePriority(text: string): number | null {
  const trimmed = text.trim();
  if (!/^-?\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : null;
}
