#!/usr/bin/env node
// `npm run build`: compiles the sources into dist/, adds what the compiler does not copy (the
// SQL migrations, the hashing threads' file) and makes dist/bootstrap/cli.js executable, so the
// `latchkey` bin runs as installed.
//
// The tree is built beside dist/ (dist.next/) and put in its place whole at the end: a server
// started from dist/ keeps finding the files it loads late (a new hashing thread's file) while
// a build runs, rather than a folder emptied for the compiler to fill.
import { spawnSync } from "node:child_process"
import { chmodSync, cpSync, renameSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = join(root, "dist")
const next = join(root, "dist.next")
const old = join(root, "dist.old")

rmSync(next, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", next], {
  cwd: root,
  stdio: "inherit"
})
if (compiled.status !== 0) {
  rmSync(next, { recursive: true, force: true })
  process.exit(compiled.status ?? 1)
}
cpSync(join(root, "adapters/postgres/migrations"), join(next, "adapters/postgres/migrations"), {
  recursive: true
})
cpSync(join(root, "adapters/crypto/HashingThread.mjs"), join(next, "adapters/crypto/HashingThread.mjs"))
chmodSync(join(next, "bootstrap/cli.js"), 0o755)

rmSync(old, { recursive: true, force: true })
try {
  renameSync(dist, old)
} catch (error) {
  // No dist/ yet: a first build.
  if (error.code !== "ENOENT") throw error
}
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })
