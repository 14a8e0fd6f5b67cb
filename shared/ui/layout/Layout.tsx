import { NavLink, Outlet } from "react-router";
import { useBoot } from "../boot/boot-context";
import { BotCheckAttribution } from "./BotCheckAttribution";
import { LoadingBar } from "./LoadingBar";
import { Logo } from "./Logo";
import { NavigationEffects } from "./NavigationEffects";
import { RouteAnnouncer } from "./RouteAnnouncer";
import { SiteSearch } from "./SiteSearch";
import { ThemeToggle } from "./ThemeToggle";
import { UpdateNotice } from "./UpdateNotice";

const NAV_ITEMS = [
  { to: "/", label: "Home", end: true },
  { to: "/cve-radar", label: "CVE radar", end: false },
  { to: "/ioc-radar", label: "IOC radar", end: false },
] as const;

/** The one default layout around every page. */
export function Layout() {
  const { config } = useBoot();
  return (
    <div className="app">
      <a className="skip-link" href="#main-content">
        Skip to content
      </a>
      <LoadingBar />
      <header className="site-header">
        <NavLink to="/" className="site-header__brand" aria-label={`${config.siteName} home`}>
          <Logo />
          <span>{config.siteName}</span>
        </NavLink>
        <nav aria-label="Main" className="site-header__nav">
          {NAV_ITEMS.map((item) => (
            <NavLink key={item.to} to={item.to} end={item.end} className="site-header__link">
              {item.label}
            </NavLink>
          ))}
        </nav>
        <SiteSearch />
        <ThemeToggle />
      </header>
      <UpdateNotice />
      <main id="main-content" className="page" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <p>Data from the publishers&apos; own feeds: CVE List, CISA KEV, FIRST EPSS, abuse.ch, MISP warninglists and others.</p>
        {config.botCheckSiteKey ? <BotCheckAttribution /> : null}
      </footer>
      <RouteAnnouncer />
      <NavigationEffects />
    </div>
  );
}
