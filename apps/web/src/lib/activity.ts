import { AUDIT_OPERATIONS, AUDIT_RESOURCE_TYPES } from "@ratecard/validators";
import { z } from "zod";

// The activity page's filters, kept in the address so that a view can be reloaded and shared.

export {
  AUDIT_RESOURCE_TYPES as ACTIVITY_RESOURCE_TYPES,
  AUDIT_OPERATIONS as ACTIVITY_OPERATIONS,
} from "@ratecard/validators";

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional()
  .catch(undefined);

export const ZActivitySearch = z.object({
  resource: z.enum(AUDIT_RESOURCE_TYPES).optional().catch(undefined),
  operation: z.enum(AUDIT_OPERATIONS).optional().catch(undefined),
  user: z.string().min(1).optional().catch(undefined),
  from: day,
  to: day,
});
export type ActivitySearch = z.infer<typeof ZActivitySearch>;

/** The midnight that starts `date` in the operator's time zone, as a UTC moment. */
function localMidnight(date: string, plusDays = 0): string {
  const [year, month, dayOfMonth] = date.split("-").map(Number) as [number, number, number];
  return new Date(year, month - 1, dayOfMonth + plusDays).toISOString();
}

/** The audit.list filters for a search: `from` and `to` are whole days in the operator's time zone. */
export function activityFilters(search: ActivitySearch) {
  return {
    resource_type: search.resource,
    operation: search.operation,
    user_id: search.user,
    since: search.from ? localMidnight(search.from) : undefined,
    until: search.to ? localMidnight(search.to, 1) : undefined,
  };
}
