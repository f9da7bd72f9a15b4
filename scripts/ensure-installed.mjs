#!/usr/bin/env node
// `npm start` and `npm test` run this first: on a fresh clone, or after a pull that changed
// package-lock.json, it installs exactly the locked dependencies (`npm ci`) before anything
// needs them. npm's own record of what it installed (node_modules/.package-lock.json) being
// newer than the lock file means the install is current, as npm itself judges it.
import { spawnSync } from "node:child_process"
import { existsSync, statSync } from "node:fs"

const root = new URL("..", import.meta.url)
const lock = new URL("package-lock.json", root)
const installed = new URL("node_modules/.package-lock.json", root)

const current = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs
if (!current) {
  console.log("latchkey: installing the locked dependencies (npm ci)")
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" })
  process.exit(result.status ?? 1)
}
