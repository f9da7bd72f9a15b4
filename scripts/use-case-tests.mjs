/**
 * Every use case has its test file (docs/architecture.md, Tests). Run by `npm run layering`.
 *
 * A use case is a module under application/auth/ or application/oauth/ (any depth, but not
 * under a ports/ folder) that exports an operation through the span helper, `Telemetry.fn(`:
 * every use case and every application step of its own gets one (house style), while ports,
 * settings, error modules and pure helpers (ClientInput, NewUser, …) do not. Its
 * test mirrors its path: application/auth/admin/CreateUser.ts → test/application/auth/admin/
 * CreateUser.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const services = ["application/auth", "application/oauth"]

/**
 * Use cases still without a file of their own, each to get one. The oauth service's are covered
 * on memory adapters by test/application/oauth's walks through several use cases (Flow,
 * Lifetimes, ClientMetadataDocument) and end to end (test/e2e/oauth).
 * Keep this short: a listed use case that gains its test file fails the check until it leaves
 * the list, and a new use case is never added here.
 */
export const exempt = new Set([
  "application/oauth/Introspect.ts",
  "application/oauth/IssueCode.ts",
  "application/oauth/ManageClients.ts",
  "application/oauth/ReapIdleClients.ts",
  "application/oauth/Refresh.ts"
])

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "ports" ? [] : walk(path)
    return name.endsWith(".ts") ? [path] : []
  })

/** The use-case modules under `root`, as paths relative to it. */
export const useCases = (root) =>
  services
    .flatMap((service) => walk(join(root, service)))
    .filter((path) => readFileSync(path, "utf8").includes("Telemetry.fn("))
    .map((path) => relative(root, path).split("\\").join("/"))
    .sort()

export const testFileOf = (useCase) => `test/${useCase.replace(/\.ts$/, ".test.ts")}`

/** What is wrong under `root`: use cases without their test file, exemptions no longer needed. */
export const problems = (root, exemptions = exempt) => {
  const found = useCases(root)
  const missing = found
    .filter((useCase) => !exemptions.has(useCase) && !existsSync(join(root, testFileOf(useCase))))
    .map((useCase) => `${useCase} has no ${testFileOf(useCase)}`)
  const stale = [...exemptions]
    .filter((useCase) => !found.includes(useCase) || existsSync(join(root, testFileOf(useCase))))
    .map((useCase) => `${useCase} is exempt but has its test file or is no use case: take it off the list`)
  return [...missing, ...stale]
}

// `node scripts/use-case-tests.mjs [root]`: the repository by default; another root (a test's
// fixture tree) is checked without the exemptions, which name this repository's files.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const given = process.argv[2]
  const root = given ?? fileURLToPath(new URL("..", import.meta.url))
  const exemptions = given === undefined ? exempt : new Set()
  const found = problems(root, exemptions)
  if (found.length > 0) {
    for (const problem of found) console.error(problem)
    process.exit(1)
  }
  const count = useCases(root).length
  console.log(
    `use-case tests: ${count - exemptions.size} of ${count} use cases have their test file, ${exemptions.size} exempt`
  )
}
