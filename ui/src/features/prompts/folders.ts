// Prompt names with `/` are folders (`team/support/greet` lives in `team/support`). The list's URL
// holds the folder (`?folder=team/support`); a prompt's page is at `prompts/<name>` with each
// segment URL-encoded, so its address reads like its name.

export interface Crumb {
  /** The segment shown. */
  label: string;
  /** The folder it opens: `""` for the root. */
  folder: string;
}

/** A folder as the URL holds it: no leading, trailing or doubled `/`. */
export function normalizeFolder(folder: string | null | undefined): string {
  return (folder ?? "").split("/").filter(Boolean).join("/");
}

/** The trail from the root to `folder`, the root first. */
export function breadcrumb(folder: string): Crumb[] {
  const segments = normalizeFolder(folder).split("/").filter(Boolean);
  return [{ label: "Prompts", folder: "" }, ...segments.map((label, i) => ({ label, folder: segments.slice(0, i + 1).join("/") }))];
}

/** The folder a prompt is in: `""` for one at the root. */
export function folderOf(name: string): string {
  const cut = name.lastIndexOf("/");
  return cut < 0 ? "" : name.slice(0, cut);
}

/** The last segment of a name or folder. */
export function leafOf(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** The prompt page's path under the prompts page. */
export function promptPath(name: string): string {
  return name.split("/").map(encodeURIComponent).join("/");
}

/** The name back from the path under the prompts page (the router hands it over decoded or not). */
export function nameFromPath(path: string): string {
  return path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join("/");
}

/** A new prompt's default name: in the folder being looked at. */
export function nameInFolder(folder: string, leaf: string): string {
  const f = normalizeFolder(folder);
  return f ? `${f}/${leaf}` : leaf;
}
