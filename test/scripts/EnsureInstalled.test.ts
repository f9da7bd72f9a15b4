import { spawnSync } from "node:child_process"
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"

/**
 * scripts/ensure-installed.mjs, run as `npm start` and `npm test` run it, in a checkout of its
 * own whose `npm` only writes down how it was called.
 */

const script = fileURLToPath(new URL("../../scripts/ensure-installed.mjs", import.meta.url))
const checkouts: Array<string> = []

afterEach(() => {
  for (const dir of checkouts.splice(0)) rmSync(dir, { recursive: true, force: true })
})

type Install = "none" | "current" | "older than the lock"

const checkout = (install: Install) => {
  const root = mkdtempSync(join(tmpdir(), "latchkey-ensure-installed-"))
  checkouts.push(root)
  mkdirSync(join(root, "scripts"))
  cpSync(script, join(root, "scripts/ensure-installed.mjs"))
  writeFileSync(join(root, "package-lock.json"), "{}")
  const lockTime = new Date("2025-06-02T10:00:00Z")
  utimesSync(join(root, "package-lock.json"), lockTime, lockTime)
  if (install !== "none") {
    mkdirSync(join(root, "node_modules"))
    writeFileSync(join(root, "node_modules/.package-lock.json"), "{}")
    const installed = new Date(lockTime.getTime() + (install === "current" ? 60_000 : -60_000))
    utimesSync(join(root, "node_modules/.package-lock.json"), installed, installed)
  }
  mkdirSync(join(root, "bin"))
  writeFileSync(join(root, "bin/npm"), `#!/bin/sh\necho "$@" >> "${join(root, "npm-calls")}"\n`)
  chmodSync(join(root, "bin/npm"), 0o755)
  return root
}

/** What `npm <command>` would print first, and what it asked npm to do. */
const run = (root: string, command: "start" | "test") => {
  const result = spawnSync(process.execPath, [join(root, "scripts/ensure-installed.mjs"), command], {
    env: { PATH: `${join(root, "bin")}:${process.env.PATH ?? ""}` },
    encoding: "utf8"
  })
  expect(result.status, result.stderr).toBe(0)
  const calls = existsSync(join(root, "npm-calls"))
    ? readFileSync(join(root, "npm-calls"), "utf8").trim().split("\n")
    : []
  return { printed: result.stdout, calls }
}

describe.runIf(process.platform !== "win32")("ensure-installed", () => {
  it("installs the locked dependencies on a fresh clone, for npm start and npm test alike, and says so", () => {
    for (const command of ["start", "test"] as const) {
      const { printed, calls } = run(checkout("none"), command)
      expect(calls).toEqual(["ci --no-audit --no-fund --loglevel=error"])
      expect(printed).toContain("no node_modules yet: installing the locked dependencies (npm ci)")
    }
  })

  it("npm test leaves an install older than the lock alone and says what to run; npm start reinstalls", () => {
    const tested = run(checkout("older than the lock"), "test")
    expect(tested.calls).toEqual([])
    expect(tested.printed).toContain("package-lock.json is newer than what node_modules holds")
    expect(tested.printed).toContain("run `npm ci`")

    const started = run(checkout("older than the lock"), "start")
    expect(started.calls).toEqual(["ci --no-audit --no-fund --loglevel=error"])
    expect(started.printed).toContain("package-lock.json is newer than what node_modules holds: installing")
  })

  it("does nothing, quietly, when the install is current", () => {
    for (const command of ["start", "test"] as const) {
      expect(run(checkout("current"), command)).toEqual({ printed: "", calls: [] })
    }
  })
})
