import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Navigate,
} from "@tanstack/react-router";
import { z } from "zod";
import { Layout } from "./components/Layout";
import { NotFoundPage } from "./components/NotFoundPage";
import { RouteError } from "./components/QueryState";
import { ZActivitySearch } from "./lib/activity";
import { parsePreviewSearch } from "./lib/preview";
import { ZRuleListSearch } from "./lib/rule-list";
import { ZExplorerSearch } from "./lib/rules";
import { parseSearch, stringifySearch } from "./lib/search";
import { ZTargetSearch } from "./lib/targets";
import { AccountsPage } from "./pages/AccountsPage";
import { ActivityPage } from "./pages/ActivityPage";
import { FieldPage } from "./pages/FieldPage";
import { GroupPage } from "./pages/GroupPage";
import { GroupsPage } from "./pages/GroupsPage";
import { ModulesPage } from "./pages/ModulesPage";
import { MyTokensPage } from "./pages/MyTokensPage";
import { PreviewPage } from "./pages/PreviewPage";
import { RuleEditPage, RuleNewPage } from "./pages/RuleFormPage";
import { RulesExplorerPage } from "./pages/RulesExplorerPage";
import { ScriptsPage } from "./pages/ScriptsPage";
import { ServicePage } from "./pages/ServicePage";
import { ServicesPage } from "./pages/ServicesPage";
import { TargetsDetailPage } from "./pages/TargetsDetailPage";
import { TargetsPage } from "./pages/TargetsPage";

// One URL per list and record, nested as in CloudKitty's dashboard; list state (tab, filters,
// sort) lives in the query string so views can be reloaded and shared.

const optionalText = z.string().optional().catch(undefined);
const ZListSearch = z.object({ q: optionalText, sort: optionalText });
// A record's page: its tab, and the state of the rule list on it (text, type, sort, open rule).
const tabSearch = <const T extends readonly [string, ...string[]]>(tabs: T) =>
  ZRuleListSearch.extend({ tab: z.enum(tabs).optional().catch(undefined) });
const ZNewRuleSearch = z.object({
  service_id: optionalText,
  field_id: optionalText,
  group_id: optionalText,
});

const rootRoute = createRootRoute({
  component: Layout,
  notFoundComponent: NotFoundPage,
  errorComponent: RouteError,
});

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  component: () => <Navigate to="/hashmap/services" replace />,
});

const servicesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/services",
  validateSearch: ZListSearch,
  component: ServicesPage,
});
const serviceRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/services/$serviceId",
  validateSearch: tabSearch(["fields", "mappings", "thresholds", "history"]),
  component: ServicePage,
});
const fieldRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/fields/$fieldId",
  validateSearch: tabSearch(["mappings", "thresholds", "history"]),
  component: FieldPage,
});
const groupsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/groups",
  validateSearch: ZListSearch,
  component: GroupsPage,
});
const groupRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/groups/$groupId",
  validateSearch: tabSearch(["mappings", "thresholds", "history"]),
  component: GroupPage,
});
const newMappingRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/mappings/new",
  validateSearch: ZNewRuleSearch,
  component: () => <RuleNewPage kind="mapping" />,
});
const mappingRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/mappings/$ruleId",
  component: () => <RuleEditPage kind="mapping" />,
});
const newThresholdRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/thresholds/new",
  validateSearch: ZNewRuleSearch,
  component: () => <RuleNewPage kind="threshold" />,
});
const thresholdRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/thresholds/$ruleId",
  component: () => <RuleEditPage kind="threshold" />,
});
const rulesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/hashmap/rules",
  validateSearch: ZExplorerSearch,
  component: RulesExplorerPage,
});
const previewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/preview",
  validateSearch: parsePreviewSearch,
  component: PreviewPage,
});
const scriptsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/pyscripts",
  validateSearch: ZListSearch,
  component: ScriptsPage,
});
// The code editor is only loaded on the script pages.
const newScriptRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/pyscripts/new",
  component: lazyRouteComponent(() => import("./pages/ScriptPages"), "ScriptNewPage"),
});
const scriptRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/pyscripts/$scriptId",
  component: lazyRouteComponent(() => import("./pages/ScriptHistoryPage"), "ScriptPageWithHistory"),
});
const modulesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/modules",
  component: ModulesPage,
});

const activityRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/activity",
  validateSearch: ZActivitySearch,
  component: ActivityPage,
});

const targetsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/targets",
  validateSearch: ZListSearch,
  component: TargetsPage,
});
const targetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/targets/$targetId",
  validateSearch: ZTargetSearch,
  component: TargetsDetailPage,
});

const accountsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/admin/accounts",
  component: AccountsPage,
});
const myTokensRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/account/tokens",
  component: MyTokensPage,
});

const routeTree = rootRoute.addChildren([
  indexRoute,
  servicesRoute,
  serviceRoute,
  fieldRoute,
  groupsRoute,
  groupRoute,
  newMappingRoute,
  mappingRoute,
  newThresholdRoute,
  thresholdRoute,
  rulesRoute,
  previewRoute,
  scriptsRoute,
  newScriptRoute,
  scriptRoute,
  modulesRoute,
  activityRoute,
  targetsRoute,
  targetRoute,
  accountsRoute,
  myTokensRoute,
]);

export function createAppRouter() {
  return createRouter({
    routeTree,
    parseSearch,
    stringifySearch,
    defaultPreload: "intent",
    scrollRestoration: true,
  });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
