import { Link, Outlet, useRouter, useRouterState, type LinkProps } from "@tanstack/react-router";
import { useEffect, useRef, useState, type RefObject } from "react";
import { Toaster } from "sonner";
import { composePageTitle, mayMoveFocus, readPageHeading } from "../lib/page-title";
import { useSession } from "../session/SessionProvider";
import { UserMenu } from "../session/UserMenu";

interface NavigationSection {
  heading: string;
  links: readonly { to: LinkProps["to"]; label: string }[];
}

const NAVIGATION: readonly NavigationSection[] = [
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
  {
    heading: "Configuration",
    links: [{ to: "/modules", label: "Rating modules" }],
  },
] as const;

/** The audit trail is for those the policy lets read it (ratecard:read_audit). */
function withActivity(navigation: readonly NavigationSection[], readAudit: boolean) {
  if (!readAudit) return navigation;
  return navigation.map((section) =>
    section.heading === "Configuration"
      ? { ...section, links: [...section.links, { to: "/activity", label: "Activity" }] }
      : section,
  );
}

/** The CloudKitty targets are for those the policy lets manage them (ratecard:manage_targets). */
function withTargets(
  navigation: readonly NavigationSection[],
  manageTargets: boolean,
): readonly NavigationSection[] {
  if (!manageTargets) return navigation;
  return navigation.map((section) =>
    section.heading === "Configuration"
      ? {
          ...section,
          links: [...section.links, { to: "/targets", label: "CloudKitty targets" } as const],
        }
      : section,
  );
}

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

/** Waits this long for a page's heading (a record still loading) before giving up on focusing it. */
const HEADING_WAIT_MS = 15_000;

/**
 * Once for every page, from what the page renders: the document title follows its <h1>; after a
 * navigation (not on the first load) focus moves to that <h1>, so keyboard and screen reader users
 * start at the new page instead of on <body>, and the new title is announced.
 */
function usePageTitleAndFocus(main: RefObject<HTMLElement | null>): string {
  // The location the rendered page belongs to: a lazily loaded page is on screen only then.
  const pathname = useRouterState({
    select: (state) => (state.resolvedLocation ?? state.location).pathname,
  });
  const [announcement, setAnnouncement] = useState("");
  const previousPathname = useRef<string | null>(null);
  // Where focus was when the navigation began (the link followed, a panel's Save button): by the
  // time the new page is on screen a closing dialog may have put focus back on what opened it,
  // which is then where the operator is, not a reason to move.
  const router = useRouter();
  const focusAtNavigation = useRef<Element | null>(null);
  useEffect(
    () =>
      router.subscribe("onBeforeNavigate", (event) => {
        if (event.pathChanged) focusAtNavigation.current = document.activeElement;
      }),
    [router],
  );
  // Redirects while the console opens (/ to the services) are part of the first load: focus
  // moves only once the operator has done something.
  const interacted = useRef(false);
  useEffect(() => {
    const note = () => (interacted.current = true);
    window.addEventListener("pointerdown", note, { capture: true, once: true });
    window.addEventListener("keydown", note, { capture: true, once: true });
    return () => {
      window.removeEventListener("pointerdown", note, { capture: true });
      window.removeEventListener("keydown", note, { capture: true });
    };
  }, []);

  useEffect(() => {
    const container = main.current;
    if (!container) return;
    const update = () => {
      const title = readPageHeading(container)?.title ?? composePageTitle(null);
      if (document.title !== title) document.title = title;
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(container, { subtree: true, childList: true, characterData: true });
    return () => observer.disconnect();
  }, [main]);

  useEffect(() => {
    const container = main.current;
    const isFirstLoad = previousPathname.current === null;
    if (previousPathname.current === pathname) return;
    previousPathname.current = pathname;
    if (!container || isFirstLoad || !interacted.current) return;
    const atNavigation = focusAtNavigation.current ?? document.activeElement;
    focusAtNavigation.current = null;
    let finished = false;
    const finish = () => {
      finished = true;
      observer.disconnect();
      clearTimeout(timer);
    };
    const focusHeading = () => {
      const page = readPageHeading(container);
      if (finished || !page) return;
      finish();
      setAnnouncement(page.title);
      if (!mayMoveFocus(document.activeElement, atNavigation, document.body)) return;
      if (!page.heading.hasAttribute("tabindex")) page.heading.tabIndex = -1;
      // Scroll restoration (Back to a long list) decides the scroll position, not the focus.
      page.heading.focus({ preventScroll: true });
    };
    const observer = new MutationObserver(focusHeading);
    const timer = setTimeout(finish, HEADING_WAIT_MS);
    observer.observe(container, { subtree: true, childList: true, characterData: true });
    focusHeading();
    return finish;
  }, [pathname, main]);

  return announcement;
}

export function Layout() {
  const { session } = useSession();
  const main = useRef<HTMLElement>(null);
  const announcement = usePageTitleAndFocus(main);
  const navigation = withActivity(
    withTargets(
      session.strategy === "local"
        ? [...NAVIGATION, accountLinks(session.can.manageAccounts)]
        : NAVIGATION,
      session.can.manageTargets,
    ),
    session.can.readAudit,
  );
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
      <main id="main" className="content" tabIndex={-1} ref={main}>
        <Outlet />
      </main>
      <p className="visually-hidden" role="status" aria-live="polite" data-route-announcer>
        {announcement}
      </p>
      <Toaster position="bottom-right" richColors closeButton duration={6000} />
    </div>
  );
}
