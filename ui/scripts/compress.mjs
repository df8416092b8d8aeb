// After `vite build`: writes a gzip sibling (`app.js.gz`) of every compressible file in dist/, which
// web serves to clients that accept gzip (no compression per request), and prints the bundle's
// size: all JS and CSS, and what the first page loads (index.html and the files it names).
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync, constants } from "node:zlib";

const dist = new URL("../dist/", import.meta.url).pathname;
const compressible = /\.(js|mjs|css|html|svg|json|txt|map|wasm)$/;
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

const sizes = new Map();
for (const path of files(dist)) {
  if (!compressible.test(path)) continue;
  const raw = readFileSync(path);
  const gz = gzipSync(raw, { level: constants.Z_BEST_COMPRESSION });
  sizes.set(relative(dist, path), { raw: raw.length, gz: gz.length });
  // Tiny files are not worth a second file; web serves them as they are.
  if (raw.length >= 256 && gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
}

const code = [...sizes].filter(([name]) => /\.(js|css)$/.test(name));
const sum = (list, key) => list.reduce((total, [, size]) => total + size[key], 0);
const index = readFileSync(join(dist, "index.html"), "utf8");
const named = [...index.matchAll(/(?:src|href)="\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const first = [["index.html", sizes.get("index.html")], ...named.map((n) => [n, sizes.get(n)])].filter(
  ([, size]) => size,
);

console.log(`bundle: ${code.length} JS/CSS files, ${kib(sum(code, "raw"))} raw, ${kib(sum(code, "gz"))} gzipped`);
console.log(`first page (index.html + ${named.length} files): ${kib(sum(first, "gz"))} gzipped`);
for (const [name, size] of code.sort((a, b) => b[1].gz - a[1].gz)) {
  console.log(`  ${name.padEnd(48)} ${kib(size.raw).padStart(10)} ${kib(size.gz).padStart(10)} gz`);
}
