import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { Markdown } from "./Markdown";

describe("Markdown", () => {
  it("renders the common blocks and inline markup", () => {
    const { container } = render(
      <Markdown text={"# Title\n\nSome **bold** and *em* and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```js\nlet x = 1;\n```"} />,
    );
    expect(container.querySelector("h3")?.textContent).toBe("Title");
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    expect(container.querySelector("em")?.textContent).toBe("em");
    expect(container.querySelector("p code")?.textContent).toBe("code");
    expect(Array.from(container.querySelectorAll("ul li"), (li) => li.textContent)).toEqual(["one", "two"]);
    expect(container.querySelectorAll("ol li")).toHaveLength(2);
    expect(container.querySelector("blockquote")?.textContent).toBe("quoted");
    expect(container.querySelector("pre code")?.textContent).toBe("let x = 1;");
  });

  it("never renders HTML and links only to http(s) and mailto", () => {
    const { container } = render(
      <Markdown text={'<img src=x onerror="alert(1)"> <script>alert(2)</script> [bad](javascript:alert(3)) [good](https://example.com) https://loupe.dev'} />,
    );
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(container.textContent).toContain("<script>alert(2)</script>");
    const links = Array.from(container.querySelectorAll("a"), (a) => a.getAttribute("href"));
    expect(links).toEqual(["https://example.com", "https://loupe.dev"]);
    expect(container.querySelector("a")?.getAttribute("rel")).toContain("noopener");
  });

  it("keeps snake_case words and lone asterisks as they are", () => {
    const { container } = render(<Markdown text={"call my_tool_name with 2 * 3 * 4"} />);
    expect(container.querySelector("em")).toBeNull();
    expect(container.textContent).toBe("call my_tool_name with 2 * 3 * 4");
  });
});
