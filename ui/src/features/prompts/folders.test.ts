import { describe, expect, it } from "vitest";

import { breadcrumb, folderOf, leafOf, nameFromPath, nameInFolder, normalizeFolder, promptPath } from "./folders";

describe("folders", () => {
  it("builds the breadcrumb from the root", () => {
    expect(breadcrumb("")).toEqual([{ label: "Prompts", folder: "" }]);
    expect(breadcrumb("/team//support/")).toEqual([
      { label: "Prompts", folder: "" },
      { label: "team", folder: "team" },
      { label: "support", folder: "team/support" },
    ]);
    expect(normalizeFolder(null)).toBe("");
  });

  it("splits a name into its folder and leaf", () => {
    expect([folderOf("team/support/greet"), leafOf("team/support/greet")]).toEqual(["team/support", "greet"]);
    expect([folderOf("greet"), leafOf("greet")]).toEqual(["", "greet"]);
    expect(nameInFolder("team/", "new-prompt")).toBe("team/new-prompt");
    expect(nameInFolder("", "x")).toBe("x");
  });

  it("round-trips a name through the page's path, odd characters included", () => {
    for (const name of ["greet", "team/support/greet", "a b/c?d#e%f", "ünï/çødé"]) {
      const path = promptPath(name);
      expect(path.split("/")).toHaveLength(name.split("/").length);
      expect(nameFromPath(path)).toBe(name);
    }
    expect(promptPath("a b/c?d")).toBe("a%20b/c%3Fd");
    expect(nameFromPath("bad%zz/x")).toBe("bad%zz/x");
  });
});
