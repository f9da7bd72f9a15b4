import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // supabase-js (the auth service's end-to-end client) wants a WebSocket for its realtime
    // part even when unused; Node 20 has one only behind this flag, later Nodes by default.
    poolOptions: {
      forks: { execArgv: typeof globalThis.WebSocket === "undefined" ? ["--experimental-websocket"] : [] }
    },
    reporters: ["default"]
  }
})
