import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { cruise, type IReporterOutput } from "dependency-cruiser"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("..", import.meta.url))
const fixtures = fileURLToPath(new URL("./fixtures/layering", import.meta.url))

/** The very rule set CI runs (`npm run layering`). */
const ruleSet = { forbidden: createRequire(import.meta.url)(`${root}.dependency-cruiser.cjs`).forbidden }

const violationsIn = async (baseDir: string, folders: Array<string>) => {
  const result: IReporterOutput = await cruise(folders, {
    baseDir,
    validate: true,
    ruleSet,
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js"],
      conditionNames: ["import", "types", "node", "default"]
    }
  })
  if (typeof result.output === "string") throw new Error("expected a structured cruise result")
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
}

describe("the layering rule", () => {
  it("flags every kind of violation in the fixture tree", async () => {
    const violations = await violationsIn(fixtures, ["domain", "application", "adapters", "bootstrap"])
    const has = (rule: string, from: string) => violations.some((v) => v.startsWith(`${rule}: ${from}`))
    expect(has("domain-imports-only-effect", "domain/ReachesOut.ts")).toBe(true)
    expect(has("core-uses-no-node-builtins", "domain/ReachesOut.ts")).toBe(true)
    expect(has("nothing-imports-bootstrap", "domain/ReachesOut.ts")).toBe(true)
    expect(has("nothing-imports-bootstrap", "adapters/Adapter.ts")).toBe(true)
    expect(has("application-imports-only-effect-and-domain", "application/UsesNpm.ts")).toBe(true)
    expect(violations.filter((v) => v.includes("domain/Pure.ts ->"))).toEqual([])
  })

  it("keeps the two services apart: neither imports the other, and the shared roots import neither", async () => {
    const violations = await violationsIn(fixtures, ["domain", "application", "adapters", "bootstrap"])
    const has = (rule: string, from: string) => violations.some((v) => v.startsWith(`${rule}: ${from}`))
    expect(has("auth-does-not-import-oauth", "domain/auth/Session.ts")).toBe(true)
    expect(has("auth-does-not-import-oauth", "adapters/auth/UsesOAuth.ts")).toBe(true)
    expect(has("oauth-does-not-import-auth", "application/oauth/UsesAuth.ts")).toBe(true)
    expect(has("shared-does-not-import-a-service", "domain/Shared.ts")).toBe(true)
    // A service may use the shared root.
    expect(violations.filter((v) => v.includes("domain/oauth/Grant.ts ->"))).toEqual([])
  })

  it("keeps the development inbox to `latchkey dev`, which loads it only when it runs", async () => {
    const violations = await violationsIn(fixtures, ["domain", "application", "adapters", "bootstrap"])
    const has = (rule: string, from: string) => violations.some((v) => v.startsWith(`${rule}: ${from}`))
    expect(has("only-dev-starts-the-inbox", "bootstrap/StartsInbox.ts")).toBe(true)
    expect(has("dev-inbox-loaded-on-demand", "bootstrap/StartsInbox.ts")).toBe(true)
    // The dev command's module may use the inbox, and anything may load that module on demand.
    expect(violations.filter((v) => v.includes("bootstrap/DevInbox.ts ->"))).toEqual([])
    expect(violations.filter((v) => v.startsWith("dev-inbox-loaded-on-demand"))).toHaveLength(1)
  })

  it("lets only SharedStatements batch, so that a transaction's statements stay on its connection", async () => {
    const violations = await violationsIn(fixtures, ["domain", "application", "adapters", "bootstrap"])
    expect(violations.filter((v) => v.startsWith("only-shared-statements-batch"))).toEqual([
      "only-shared-statements-batch: adapters/postgres/BatchesItself.ts -> adapters/postgres/Batched.ts"
    ])
  })

  it("finds no violation in the project itself", async () => {
    const violations = await violationsIn(root, ["domain", "application", "adapters", "bootstrap"])
    expect(violations).toEqual([])
  })

  it("rejects `process` in the core: the core compiles without Node's type definitions", () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      `${root}tsconfig.core.json`,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"))
        }
      }
    )
    if (parsed === undefined) throw new Error("tsconfig.core.json did not parse")
    const program = ts.createProgram(
      [`${fixtures}/domain/UsesProcess.ts`, `${fixtures}/domain/Pure.ts`],
      parsed.options
    )
    const messages = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
    expect(
      messages.some((m) => m.includes("UsesProcess.ts") && m.includes("Cannot find name 'process'"))
    ).toBe(true)
    expect(messages.filter((m) => m.includes("Pure.ts"))).toEqual([])
  })
})
