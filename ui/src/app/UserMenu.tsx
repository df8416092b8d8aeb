// The account menu: who is signed in, the settings of the current project and organization, the
// instance admin pages (for instance admins), the theme, and signing out.

import { Link, useMatch } from "react-router";

import { Menu, MenuItem, MenuSeparator } from "../components/Menu";
import { currentOrganizationId, organizationPath } from "./ProjectSwitcher";
import { projectPath } from "./routes";
import { useSession, useMe } from "./session";
import { useTheme, type ThemeChoice } from "./theme";

const THEMES: [ThemeChoice, string][] = [
  ["light", "Light theme"],
  ["dark", "Dark theme"],
  ["system", "Follow the system theme"],
];

export function UserMenu() {
  const me = useMe();
  const { signOut } = useSession();
  const { choice, setChoice } = useTheme();
  const projectId = useMatch("/project/:projectId/*")?.params.projectId;
  const orgMatch = useMatch("/organization/:orgId/*")?.params.orgId;
  const orgId = currentOrganizationId(me, projectId, orgMatch) || me.organizations[0]?.id;
  const shown = me.user.name || me.user.email;
  const initial = (shown.trim()[0] ?? "?").toUpperCase();

  return (
    <Menu
      ariaLabel={`Account: ${shown}`}
      label={
        <span className="avatar" aria-hidden="true">
          {initial}
        </span>
      }
    >
      <div className="menu__header">
        {me.user.name && <strong>{me.user.name}</strong>}
        <span className="menu__muted">{me.user.email}</span>
      </div>
      <MenuSeparator />
      {projectId && (
        <Link role="menuitem" className="menu__item" to={projectPath(projectId, "settings")}>
          Project settings
        </Link>
      )}
      {orgId && (
        <Link role="menuitem" className="menu__item" to={organizationPath(orgId)}>
          Organization settings
        </Link>
      )}
      <Link role="menuitem" className="menu__item" to="/setup">
        New organization or project
      </Link>
      {me.instanceAdmin && (
        <>
          <MenuSeparator />
          <Link role="menuitem" className="menu__item" to="/admin/users">
            Instance admins
          </Link>
          <Link role="menuitem" className="menu__item" to="/background-migrations">
            Background migrations
          </Link>
        </>
      )}
      <MenuSeparator />
      {THEMES.map(([value, label]) => (
        <MenuItem key={value} onSelect={() => setChoice(value)}>
          {label}
          {choice === value && <span aria-hidden="true"> ✓</span>}
        </MenuItem>
      ))}
      <MenuSeparator />
      <MenuItem onSelect={() => void signOut()}>Sign out</MenuItem>
    </Menu>
  );
}
