#!/usr/bin/env node
// Runs before `npm start` (`node scripts/ensure-installed.mjs start`) and `npm test`
// (`… test`), so that both work on a fresh clone: with no node_modules/ at all, it installs
// exactly the locked dependencies (`npm ci`), and says so.
//
// When node_modules/ is there but older than package-lock.json (a pull changed the lock), only
// `npm start` reinstalls, saying why: `npm ci` replaces the whole folder, which a test run must
// not do behind its user's back. `npm test` says what is out of date and runs the tests on what
// is installed. npm's own record of what it installed (node_modules/.package-lock.json) being
// at least as new as the lock file means the install is current, as npm itself judges it.
import { spawnSync } from "node:child_process"
import { existsSync, statSync } from "node:fs"

const command = process.argv[2] === "start" ? "start" : "test"
const root = new URL("..", import.meta.url)
const lock = new URL("package-lock.json", root)
const modules = new URL("node_modules", root)
const installed = new URL("node_modules/.package-lock.json", root)

const install = (why) => {
  console.log(`latchkey: ${why}: installing the locked dependencies (npm ci)`)
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  // Errors only: the test clients (supabase-js and its parts) declare Node 22 while they run,
  // and are tested, on the Node 20 this project supports, and npm would print a five-line
  // warning for each before the service has said a word.
  const result = spawnSync(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: root,
    stdio: "inherit"
  })
  process.exit(result.status ?? 1)
}

if (!existsSync(modules)) {
  install("no node_modules yet")
} else if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  if (command === "start") {
    install("package-lock.json is newer than what node_modules holds")
  } else {
    console.log(
      "latchkey: package-lock.json is newer than what node_modules holds; testing with what is " +
        "installed (run `npm ci`, or `npm start`, which runs it, to install the locked versions)"
    )
  }
}
