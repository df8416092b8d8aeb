import { Link } from "react-router";

import { Menu, MenuItem, MenuSeparator } from "../components/Menu";
import { useSession, useMe } from "./session";
import { useTheme } from "./theme";

export function UserMenu() {
  const me = useMe();
  const { signOut } = useSession();
  const { choice, setChoice } = useTheme();
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
      <Link role="menuitem" className="menu__item" to="/setup">
        New organization or project
      </Link>
      {me.instanceAdmin && (
        <Link role="menuitem" className="menu__item" to="/admin/users">
          Instance admins
        </Link>
      )}
      {choice !== "system" && <MenuItem onSelect={() => setChoice("system")}>Follow the system theme</MenuItem>}
      <MenuSeparator />
      <MenuItem onSelect={() => void signOut()}>
        Sign out
      </MenuItem>
    </Menu>
  );
}
