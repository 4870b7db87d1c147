// The page's import rules, checked by test/layers.test.mjs (`npm test`): no import cycle between
// files, and no upward import between the folders of web/src, whose order is LAYERS below (a
// folder may import its own files and any folder before it, never one after it). The files at the
// top of src/ (main.ts, room.ts) come last and may import anything.
// `node tools/layers.mjs [srcDir]` prints the problems and exits 1 if there are any.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Lowest first. */
export const LAYERS = ["core", "fair", "table", "net", "social", "game", "edit", "home", "."];

/** Files ranked on their own: the generated wire types import nothing, so every layer may use them. */
export const PINNED = { "net/protocol.gen.ts": "core" };

const IMPORT = /(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

function tsFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Every .ts file under src (path relative to src, "/"-separated) → the files it imports. */
export function importGraph(src) {
  const graph = new Map();
  for (const path of tsFiles(src)) {
    const deps = new Set();
    for (const m of readFileSync(path, "utf8").matchAll(IMPORT)) {
      const target = resolve(dirname(path), m[1] ?? m[2]);
      const found = [`${target}.ts`, target, join(target, "index.ts")].find((c) => c.endsWith(".ts") && existsSync(c));
      if (found) deps.add(rel(src, found));
    }
    graph.set(rel(src, path), deps);
  }
  return graph;
}

function rel(src, path) {
  return relative(src, path).split(sep).join("/");
}

/** The layer a file belongs to: its folder under src (or "." for the top), unless pinned. */
export function layerOf(file) {
  const layer = PINNED[file] ?? (file.includes("/") ? file.split("/")[0] : ".");
  return LAYERS.indexOf(layer) >= 0 ? layer : null;
}

/** Strongly connected groups of two or more files (Tarjan), each sorted. */
export function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const groups = [];
  let counter = 0;
  const strong = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strong(v);
  return groups;
}

/** The problems under src, as sentences: cycles, upward imports, files in no known layer. */
export function check(src) {
  const graph = importGraph(src);
  const problems = cycles(graph).map((g) => `import cycle: ${g.join(" -> ")}`);
  for (const [file, deps] of graph) {
    const from = layerOf(file);
    if (from === null) {
      problems.push(`${file}: in no layer (add its folder to LAYERS in tools/layers.mjs)`);
      continue;
    }
    for (const dep of deps) {
      const to = layerOf(dep);
      if (to !== null && LAYERS.indexOf(to) > LAYERS.indexOf(from)) {
        problems.push(`upward import: ${file} (${from}) imports ${dep} (${to}); order is ${LAYERS.join(" < ")}`);
      }
    }
  }
  return problems;
}

// Run as a script (not when a test bundles this module in).
if (process.argv[1]?.endsWith(`${sep}tools${sep}layers.mjs`)) {
  const src = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), "..", "src"));
  const problems = check(src);
  for (const p of problems) console.log(p);
  console.log(`${problems.length} problem(s) in ${src}`);
  process.exitCode = problems.length ? 1 : 0;
}
