import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { cliPath } from "./support/CliProcess.js"

/**
 * The package as users install it (`npm pack`, then `npm install ./latchkey-*.tgz`): the build
 * and what it loads at run time, an executable bin, only runtime dependencies, nothing that
 * builds on install. CI installs the packed tarball and starts it (`.ci/run`); this checks the
 * same things without the network. `globalSetup.ts` has built `dist/` first.
 */

const root = fileURLToPath(new URL("..", import.meta.url))
const manifest: {
  readonly scripts: Readonly<Record<string, string>>
  readonly dependencies: Readonly<Record<string, string>>
} = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))

const filesUnder = (folder: string): ReadonlyArray<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)]
  )

/** What `npm pack` puts in the tarball, asked without building (`--ignore-scripts`). */
const packed = (): ReadonlyArray<string> => {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const result = spawnSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8"
  })
  expect(result.status, result.stderr).toBe(0)
  const [pack]: ReadonlyArray<{ readonly files: ReadonlyArray<{ readonly path: string }> }> = JSON.parse(
    result.stdout
  )
  return (pack?.files ?? []).map((file) => file.path)
}

/** The package a bare import specifier names: `@scope/name/sub` → `@scope/name`. */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/")

describe("the package", () => {
  it("has an executable bin, which says how to run itself", () => {
    expect(statSync(cliPath).mode & 0o111).not.toBe(0)
    expect(readFileSync(cliPath, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node")
  })

  it("holds the build, its migrations and its hashing thread, and no sources, maps or tests", () => {
    const files = packed()
    expect(files).toContain("dist/bootstrap/cli.js")
    expect(files).toContain("dist/adapters/crypto/HashingThread.mjs")
    const migrations = filesUnder(join(root, "adapters/postgres/migrations")).map(
      (file) => `dist/${relative(root, file)}`
    )
    expect(migrations.length).toBeGreaterThan(0)
    for (const migration of migrations) expect(files).toContain(migration)
    expect(
      files.filter((file) => /\.(ts|map)$/.test(file) || !/^(dist\/|package\.json$|README\.md$)/.test(file))
    ).toEqual([])
  })

  it("runs nothing when installed: no script builds or installs anything", () => {
    for (const script of ["preinstall", "install", "postinstall", "prepare"]) {
      expect(manifest.scripts[script]).toBeUndefined()
    }
  })

  it("imports at run time only its dependencies, never a development one", () => {
    const imported = new Set<string>()
    for (const file of filesUnder(join(root, "dist")).filter((file) => /\.m?js$/.test(file))) {
      if (file.includes(`${join(root, "dist", "bench")}`)) continue
      const source = readFileSync(file, "utf8")
      for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"([^".][^"]*)"/g)) {
        const specifier = match[1] ?? ""
        if (specifier.startsWith("node:") || builtinModules.includes(specifier)) continue
        imported.add(packageOf(specifier))
      }
    }
    expect(imported.size).toBeGreaterThan(10)
    expect([...imported].filter((name) => manifest.dependencies[name] === undefined)).toEqual([])
  })
})
