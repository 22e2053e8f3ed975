import { Link, Outlet } from "@tanstack/react-router";
import { Toaster } from "sonner";
import { useSession } from "../session/SessionProvider";
import { UserMenu } from "../session/UserMenu";

const NAVIGATION = [
  {
    heading: "Hashmap",
    links: [
      { to: "/hashmap/services", label: "Services" },
      { to: "/hashmap/groups", label: "Groups" },
      { to: "/hashmap/rules", label: "Rules explorer" },
      { to: "/preview", label: "Price preview" },
    ],
  },
  { heading: "PyScripts", links: [{ to: "/pyscripts", label: "Scripts" }] },
  { heading: "Configuration", links: [{ to: "/modules", label: "Rating modules" }] },
] as const;

/** Ratecard's own accounts exist only under the local strategy. */
function accountLinks(manageAccounts: boolean) {
  return {
    heading: "Access",
    links: [
      ...(manageAccounts ? [{ to: "/admin/accounts", label: "Users and tokens" } as const] : []),
      { to: "/account/tokens", label: "My API tokens" } as const,
    ],
  };
}

export function Layout() {
  const { session } = useSession();
  const navigation =
    session.strategy === "local"
      ? [...NAVIGATION, accountLinks(session.can.manageAccounts)]
      : NAVIGATION;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/hashmap/services" className="brand">
          <span className="brand-mark" aria-hidden="true">
            R
          </span>
          Ratecard <span className="brand-sub">rating console</span>
        </Link>
        <div className="topbar-end">
          <a className="topbar-link" href="/docs">
            API reference
          </a>
          <UserMenu />
        </div>
      </header>
      <nav className="sidebar" aria-label="Main">
        {navigation.map((section) => (
          <div key={section.heading} className="nav-section">
            <p className="nav-heading">{section.heading}</p>
            <ul>
              {section.links.map((link) => (
                <li key={link.to}>
                  <Link
                    to={link.to}
                    className="nav-link"
                    activeProps={{ className: "nav-link active", "aria-current": "page" }}
                  >
                    {link.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Outlet />
      </main>
      <Toaster position="bottom-right" richColors closeButton duration={6000} />
    </div>
  );
}
