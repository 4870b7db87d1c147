// Build the web client: type-check, bundle src/main.ts into dist/app.js, copy the static files.
// `node build.mjs` (what `npm run build` and `make web` run); `node build.mjs --watch` rebuilds.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { buildCourts } from "./courts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const watch = process.argv.includes("--watch");

// The build the page says it is in `hello`: the same value the server has ($CARDTABLE_BUILD, else
// the package version in pyproject.toml), so that a page from an older deploy is told to reload.
const pyproject = readFileSync(join(here, "..", "pyproject.toml"), "utf8");
const build = process.env.CARDTABLE_BUILD || /^version\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1] || "dev";

// Type errors fail the build.
try {
  execFileSync(process.execPath, [join(here, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", here], {
    stdio: "inherit",
  });
} catch {
  console.error("web: type errors (tsc --noEmit); build failed");
  process.exit(1);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
for (const f of ["index.html", "app.css"]) copyFileSync(join(here, "static", f), join(dist, f));
buildCourts(dist);

const options = {
  entryPoints: [join(here, "src", "main.ts")],
  outfile: join(dist, "app.js"),
  bundle: true,
  minify: true,
  sourcemap: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  define: { __BUILD__: JSON.stringify(build) },
  logLevel: "warning",
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log("watching web/src ...");
} else {
  await esbuild.build(options);
  const js = readFileSync(join(dist, "app.js"));
  const css = readFileSync(join(dist, "app.css"));
  const kb = (n) => (n / 1024).toFixed(1) + " KiB";
  console.log(
    `web/dist/app.js ${kb(js.length)} (gzip ${kb(gzipSync(js).length)}), ` + `app.css ${kb(css.length)} (gzip ${kb(gzipSync(css).length)})`,
  );
}
