// Markdown as React elements, never as HTML: headings, paragraphs, lists, quotes, fenced code,
// rules, and inline code, bold, italic and links. Raw HTML in the text stays text (React escapes
// it) and only http(s) and mailto links become links, so a logged prompt cannot run script or
// restyle the page. Enough of CommonMark for what models write; tables show as text.

import type { ReactNode } from "react";
import "./value.css";

const INLINE =
  /(`+)([^`]+?)\1|\*\*(.+?)\*\*|__(.+?)__|\*([^*\s](?:[^*]*[^*\s])?)\*|\b_([^_\s](?:[^_]*[^_\s])?)_\b|\[([^\]]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<]+[^\s<.,;:!?)\]'"])/g;

function safeHref(href: string): string | null {
  return /^(https?:|mailto:)/i.test(href.trim()) ? href.trim() : null;
}

function link(key: string, href: string, text: ReactNode): ReactNode {
  const safe = safeHref(href);
  if (!safe) return <span key={key}>{text}</span>;
  return (
    <a key={key} href={safe} target="_blank" rel="noopener noreferrer nofollow">
      {text}
    </a>
  );
}

export function inline(text: string, keyPrefix = "i", depth = 0): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  INLINE.lastIndex = 0;
  const matches = depth > 4 ? [] : Array.from(text.matchAll(INLINE));
  for (const match of matches) {
    const index = match.index ?? 0;
    if (index > last) out.push(text.slice(last, index));
    const key = `${keyPrefix}-${n++}`;
    const [, , code, bold1, bold2, em1, em2, linkText, href, url] = match;
    if (code !== undefined) out.push(<code key={key}>{code}</code>);
    else if (bold1 !== undefined || bold2 !== undefined) out.push(<strong key={key}>{inline(bold1 ?? bold2 ?? "", key, depth + 1)}</strong>);
    else if (em1 !== undefined || em2 !== undefined) out.push(<em key={key}>{inline(em1 ?? em2 ?? "", key, depth + 1)}</em>);
    else if (linkText !== undefined && href !== undefined) out.push(link(key, href, inline(linkText, key, depth + 1)));
    else if (url !== undefined) out.push(link(key, url, url));
    last = index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Lines joined with line breaks, each line's inline markup rendered. */
function lines(items: string[], key: string): ReactNode[] {
  const out: ReactNode[] = [];
  items.forEach((line, i) => {
    if (i > 0) out.push(<br key={`${key}-br${i}`} />);
    out.push(...inline(line, `${key}-${i}`));
  });
  return out;
}

const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/;

function blocks(source: string, depth: number): ReactNode[] {
  const text = source.replace(/\r\n?/g, "\n").split("\n");
  const out: ReactNode[] = [];
  let i = 0;
  let key = 0;
  while (i < text.length) {
    const line = text[i] as string;
    const k = `b${depth}-${key++}`;
    const fence = /^\s{0,3}(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const code: string[] = [];
      i++;
      while (i < text.length && !(text[i] as string).trimStart().startsWith(marker)) code.push(text[i++] as string);
      i++;
      out.push(
        <pre key={k} className="markdown__code">
          <code data-language={fence[2] || undefined}>{code.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = Math.min((heading[1] as string).length + 2, 6);
      const Tag = `h${level}` as "h3";
      out.push(<Tag key={k}>{inline(heading[2] as string, k)}</Tag>);
      i++;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(<hr key={k} />);
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      while (i < text.length && /^\s{0,3}>/.test(text[i] as string)) quoted.push((text[i++] as string).replace(/^\s{0,3}>\s?/, ""));
      out.push(<blockquote key={k}>{depth < 4 ? blocks(quoted.join("\n"), depth + 1) : quoted.join("\n")}</blockquote>);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test((item[1] as string)[0] as string);
      const items: string[][] = [];
      while (i < text.length) {
        const current = text[i] as string;
        const next = LIST_ITEM.exec(current);
        if (next && /\d/.test((next[1] as string)[0] as string) === ordered) items.push([next[2] as string]);
        else if (current.trim() !== "" && /^\s+/.test(current) && items.length > 0) items[items.length - 1]?.push(current.trim());
        else break;
        i++;
      }
      const children = items.map((lines_, n) => <li key={n}>{lines(lines_, `${k}-${n}`)}</li>);
      out.push(ordered ? <ol key={k}>{children}</ol> : <ul key={k}>{children}</ul>);
      continue;
    }
    const paragraph: string[] = [];
    while (i < text.length) {
      const current = text[i] as string;
      if (current.trim() === "" || /^\s{0,3}(```|~~~|#{1,6}\s|>)/.test(current) || (paragraph.length > 0 && LIST_ITEM.test(current))) break;
      paragraph.push(current);
      i++;
    }
    out.push(<p key={k}>{lines(paragraph, k)}</p>);
  }
  return out;
}

export function Markdown({ text }: { text: string }) {
  return <div className="markdown">{blocks(text, 0)}</div>;
}
