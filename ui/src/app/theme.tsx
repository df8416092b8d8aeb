// Light and dark themes: the OS's choice until the person picks one, which is kept in localStorage.
// The choice is written to <html data-theme>; styles/tokens.css does the rest.

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";

export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

const STORAGE_KEY = "loupe.theme";
const DARK_QUERY = "(prefers-color-scheme: dark)";

function storedChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system"; // storage disabled: follow the OS
  }
}

function systemTheme(): Theme {
  return typeof matchMedia === "function" && matchMedia(DARK_QUERY).matches ? "dark" : "light";
}

/** Applies the stored choice before the first render, so the app never paints in the wrong theme. */
export function applyStoredTheme(): void {
  apply(storedChoice());
}

function apply(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === "system") delete root.dataset.theme;
  else root.dataset.theme = choice;
}

interface ThemeState {
  choice: ThemeChoice;
  /** What is shown now. */
  theme: Theme;
  setChoice(choice: ThemeChoice): void;
  /** Switches to the other theme (and stops following the OS). */
  toggle(): void;
}

const ThemeContext = createContext<ThemeState | null>(null);

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [choice, setChoiceState] = useState<ThemeChoice>(storedChoice);
  const [system, setSystem] = useState<Theme>(systemTheme);

  useEffect(() => {
    if (typeof matchMedia !== "function") return;
    const query = matchMedia(DARK_QUERY);
    const changed = () => setSystem(query.matches ? "dark" : "light");
    query.addEventListener("change", changed);
    return () => query.removeEventListener("change", changed);
  }, []);

  const setChoice = useCallback((next: ThemeChoice) => {
    setChoiceState(next);
    apply(next);
    try {
      if (next === "system") localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Storage disabled: the choice lasts until the page is closed.
    }
  }, []);

  const theme: Theme = choice === "system" ? system : choice;
  const value = useMemo<ThemeState>(
    () => ({ choice, theme, setChoice, toggle: () => setChoice(theme === "dark" ? "light" : "dark") }),
    [choice, theme, setChoice],
  );
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeState {
  const state = useContext(ThemeContext);
  if (!state) throw new Error("useTheme outside ThemeProvider");
  return state;
}
