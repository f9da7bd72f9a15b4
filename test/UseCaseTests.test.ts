import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("../scripts/use-case-tests.mjs", import.meta.url))

/** The check's exit status and what it printed, on the repository or on a tree of `files`. */
const check = (root?: string) => {
  try {
    const out = execFileSync("node", root === undefined ? [script] : [script, root], {
      encoding: "utf8",
      stdio: "pipe"
    })
    return { ok: true, out }
  } catch (error) {
    const stderr = error instanceof Error && "stderr" in error ? String(error.stderr) : String(error)
    return { ok: false, out: stderr }
  }
}

const roots: Array<string> = []
const tree = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), "use-case-tests-"))
  roots.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

const useCase = 'export const run = Telemetry.fn("Run.run")(() => Effect.void)\n'

describe("every use case has its test file (npm run layering)", () => {
  it("holds for this repository", () => {
    const result = check()
    expect(result.out).toMatch(/use-case tests: \d+ of \d+ use cases have their test file/)
    expect(result.ok).toBe(true)
  })

  it("names a use case without its mirrored test, and skips ports, settings and helpers", () => {
    const root = tree({
      "application/auth/Tested.ts": useCase,
      "test/application/auth/Tested.test.ts": "",
      "application/auth/admin/Untested.ts": useCase,
      "application/auth/ports/Store.ts": useCase,
      "application/oauth/Helper.ts": "export const pure = (n: number) => n + 1\n"
    })
    const result = check(root)
    expect(result.ok).toBe(false)
    expect(result.out.trim().split("\n")).toEqual([
      "application/auth/admin/Untested.ts has no test/application/auth/admin/Untested.test.ts"
    ])
  })
})
