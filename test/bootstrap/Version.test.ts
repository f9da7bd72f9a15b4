import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { version } from "../../bootstrap/Version.js"

describe("the build version", () => {
  it("is package.json's, as the CLI and the telemetry resource report it", () => {
    const manifest: unknown = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
    expect(
      typeof manifest === "object" && manifest !== null && "version" in manifest
        ? manifest.version
        : undefined
    ).toBe(version)
  })
})
