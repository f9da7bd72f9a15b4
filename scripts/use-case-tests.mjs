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

/** What is wrong under `root`: the use cases without their test file. */
export const problems = (root) =>
  useCases(root)
    .filter((useCase) => !existsSync(join(root, testFileOf(useCase))))
    .map((useCase) => `${useCase} has no ${testFileOf(useCase)}`)

// `node scripts/use-case-tests.mjs [root]`: the repository by default, else another root (a
// test's fixture tree).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] ?? fileURLToPath(new URL("..", import.meta.url))
  const found = problems(root)
  if (found.length > 0) {
    for (const problem of found) console.error(problem)
    process.exit(1)
  }
  const count = useCases(root).length
  console.log(`use-case tests: ${count} of ${count} use cases have their test file`)
}
