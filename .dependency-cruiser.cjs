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
