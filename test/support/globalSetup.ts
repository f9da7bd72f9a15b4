import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server tests create their databases in; null → PGlite. */
    readonly postgresUrl: string | null
    readonly postgresSource: string
  }
}

const dockerAnswers = async (): Promise<boolean> => {
  try {
    const { getContainerRuntimeClient } = await import("testcontainers")
    await getContainerRuntimeClient()
    return true
  } catch {
    return false
  }
}

const root = new URL("../..", import.meta.url).pathname

/** The newest modification time of the sources `npm run build` compiles or copies. */
const newestSource = (folder: string): number =>
  readdirSync(folder, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return Math.max(newest, newestSource(path))
    return /\.(ts|mjs|sql)$/.test(entry.name) ? Math.max(newest, statSync(path).mtimeMs) : newest
  }, 0)

/**
 * End-to-end tests start the built executable (`dist/bootstrap/cli.js`), as users run it: it is
 * built first when it is missing or older than a source, so a test never runs yesterday's build.
 */
const ensureBuilt = () => {
  const cli = join(root, "dist/bootstrap/cli.js")
  const sources = Math.max(
    ...["domain", "application", "adapters", "bootstrap"].map((folder) => newestSource(join(root, folder)))
  )
  if (existsSync(cli) && statSync(cli).mtimeMs >= sources) return
  console.log("[latchkey tests] building dist/ (npm run build): the sources are newer than the build")
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const result = spawnSync(npm, ["run", "build"], { cwd: root, stdio: "inherit" })
  // The other tests still run; those that start the executable fail on the broken build.
  if (result.status !== 0) console.log("[latchkey tests] npm run build failed: end-to-end tests will fail")
}

/**
 * Picks the database once for the whole run: TEST_DATABASE_URL when set, else a
 * Testcontainers PostgreSQL when a Docker engine answers, else embedded PGlite.
 */
export default async function setup(project: TestProject) {
  ensureBuilt()
  const fromEnv = process.env.TEST_DATABASE_URL
  if (fromEnv !== undefined && fromEnv !== "") {
    project.provide("postgresUrl", fromEnv)
    project.provide("postgresSource", "PostgreSQL from TEST_DATABASE_URL")
    console.log(`[latchkey tests] database: PostgreSQL from TEST_DATABASE_URL (${new URL(fromEnv).host})`)
    return
  }
  if (await dockerAnswers()) {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql")
    const container = await new PostgreSqlContainer("postgres:16-alpine").start()
    project.provide("postgresUrl", container.getConnectionUri())
    project.provide("postgresSource", "PostgreSQL in a Testcontainers container")
    console.log("[latchkey tests] database: PostgreSQL in a Testcontainers container")
    return async () => {
      await container.stop()
    }
  }
  project.provide("postgresUrl", null)
  project.provide("postgresSource", "embedded PGlite (no TEST_DATABASE_URL, no Docker engine)")
  console.log("[latchkey tests] database: embedded PGlite (no TEST_DATABASE_URL, no Docker engine)")
}
