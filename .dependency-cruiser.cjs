/**
 * The hexagon's dependency rule (docs/architecture.md). Paths are matched anywhere in the
 * resolved path so that the same rules apply to the fixture tree the layering test cruises.
 */
const effect = "(^|/)node_modules/effect/"

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-imports-only-effect",
      comment: "domain/ is pure: it may import effect and itself, nothing else",
      severity: "error",
      from: { path: "(^|/)domain/" },
      to: { pathNot: [effect, "(^|/)domain/"] }
    },
    {
      name: "application-imports-only-effect-and-domain",
      comment: "application/ holds use cases and ports: effect, domain/ and itself only",
      severity: "error",
      from: { path: "(^|/)application/" },
      to: { pathNot: [effect, "(^|/)domain/", "(^|/)application/"] }
    },
    {
      name: "core-uses-no-node-builtins",
      comment: "the core must run outside Node (Bun, Deno, workers, browsers)",
      severity: "error",
      from: { path: "(^|/)(domain|application)/" },
      to: { dependencyTypes: ["core"] }
    },
    {
      name: "nothing-imports-bootstrap",
      comment: "bootstrap/ composes everything; nothing may depend on it",
      severity: "error",
      from: { pathNot: "(^|/)bootstrap/" },
      to: { path: "(^|/)bootstrap/" }
    },
    {
      name: "oauth-does-not-import-auth",
      comment: "the two services share only the layers' roots; neither reaches into the other",
      severity: "error",
      from: { path: "(^|/)oauth/" },
      to: { path: "(^|/)auth/", pathNot: "(^|/)node_modules/" }
    },
    {
      name: "auth-does-not-import-oauth",
      comment: "the two services share only the layers' roots; neither reaches into the other",
      severity: "error",
      from: { path: "(^|/)auth/" },
      to: { path: "(^|/)oauth/", pathNot: "(^|/)node_modules/" }
    },
    {
      name: "shared-does-not-import-a-service",
      comment: "a module at a layer's root serves both services, so it cannot depend on either one",
      severity: "error",
      from: { path: "(^|/)(domain|application|adapters)/", pathNot: "(^|/)(oauth|auth)/" },
      to: { path: "(^|/)(oauth|auth)/", pathNot: "(^|/)node_modules/" }
    },
    {
      name: "only-dev-starts-the-inbox",
      comment:
        "the development inbox shows every mail and text, sign-in links included: only `latchkey dev` (bootstrap/DevInbox.ts) may start it",
      severity: "error",
      from: { pathNot: ["(^|/)adapters/devinbox/", "(^|/)bootstrap/DevInbox\\.ts$"] },
      to: { path: "(^|/)adapters/devinbox/" }
    },
    {
      name: "dev-inbox-loaded-on-demand",
      comment:
        "`latchkey serve` shares Services.ts with `latchkey dev`: the inbox is imported only when dev runs",
      severity: "error",
      from: {},
      to: { path: "(^|/)bootstrap/DevInbox\\.ts$", dependencyTypesNot: ["dynamic-import"] }
    },
    {
      name: "only-shared-statements-batch",
      comment:
        "SharedStatements.ts is the one way into Batched.ts, so that every shared statement runs on an open transaction's connection (DatabaseUnavailable.ts only recognises its QueueFull)",
      severity: "error",
      from: { pathNot: "(^|/)adapters/postgres/(SharedStatements|DatabaseUnavailable)\\.ts$" },
      to: { path: "(^|/)adapters/postgres/Batched\\.ts$" }
    },
    {
      name: "no-unresolvable-imports",
      severity: "error",
      from: {},
      to: { couldNotResolve: true }
    }
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js"],
      conditionNames: ["import", "types", "node", "default"]
    },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|test/fixtures)/" }
  }
}
