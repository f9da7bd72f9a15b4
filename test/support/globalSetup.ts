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

/**
 * Picks the database once for the whole run: TEST_DATABASE_URL when set, else a
 * Testcontainers PostgreSQL when a Docker engine answers, else embedded PGlite.
 */
export default async function setup(project: TestProject) {
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
