#!/usr/bin/env node
// Some registry mirrors carry only the platform they run on. `npm install` then leaves the
// other platforms' optional native binaries (Biome, Rollup, msgpackr-extract…) out of
// package-lock.json, and `npm ci` refuses the lock as out of sync. This adds each missing
// optional dependency with the platform fields its name encodes, so npm skips it on
// non-matching machines without fetching it, and fetches it by version where it matches.
// Run it after `npm install` whenever the lock file changes.
import { readFileSync, writeFileSync } from "node:fs"

const lockPath = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(lockPath, "utf8"))
const packages = lock.packages

const oses = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "openbsd",
  "openharmony",
  "sunos",
  "win32",
  "aix",
  "netbsd"
]
const cpus = ["arm64", "x64", "arm", "ia32", "loong64", "ppc64", "riscv64", "s390x", "mips64el"]

const platformOf = (name) => {
  const parts = name.split("/").pop().split("-")
  const os = parts.find((part) => oses.includes(part))
  const cpu = parts.find((part) => cpus.includes(part)) ?? (parts.includes("arm") ? "arm" : undefined)
  const libc = parts.includes("musl")
    ? "musl"
    : parts.includes("gnu") || parts.includes("gnueabihf")
      ? "glibc"
      : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`
    if (packages[key] !== undefined || packages[`${path}/${key}`] !== undefined) continue
    const { os, cpu, libc } = platformOf(name)
    if (os === undefined || cpu === undefined) continue
    packages[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc !== undefined && os === "linux" ? { libc: [libc] } : {})
    }
    added++
  }
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b)))
)
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`package-lock.json: added ${added} optional platform entries`)
