// Unit tests of the page's pure modules: each test/*.test.mjs (plain JS importing ../src/<feature>/*.ts)
// is bundled by esbuild into a temporary directory, then run with `node --test`.
// `npm test` runs this; arguments are passed on to node (e.g. --test-name-pattern=seat).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = mkdtempSync(join(tmpdir(), "cardtable-web-test-"));
try {
  const tests = readdirSync(here).filter((f) => f.endsWith(".test.mjs"));
  await esbuild.build({
    entryPoints: tests.map((f) => join(here, f)),
    outdir: out,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: ["node20"],
    logLevel: "warning",
  });
  const files = tests.map((f) => join(out, f));
  const run = spawnSync(process.execPath, ["--test", ...process.argv.slice(2), ...files], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
