import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Dotenv from "dotenv"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Readiness from "../adapters/http/Readiness.js"
import * as AuthConfig from "../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../bootstrap/auth/AuthEnvironment.js"
import * as AuthStart from "../bootstrap/auth/AuthStart.js"
import * as OAuthConfig from "../bootstrap/oauth/OAuthConfig.js"
import { cliPath } from "./support/CliProcess.js"
import * as DocBlocks from "./support/DocBlocks.js"
import * as YamlSubset from "./support/YamlSubset.js"

/**
 * The deployment files, checked where no Docker engine runs (`.ci/run` builds the image where
 * one does): the Dockerfile's stages, user, health check and commands, what .dockerignore keeps
 * out, and compose.yaml's services, their order of start, their commands, and that every
 * variable it sets is one the service reads, with values the service starts with.
 */

const root = new URL("..", import.meta.url).pathname
const read = (file: string) => readFileSync(join(root, file), "utf8")

interface Instruction {
  readonly line: number
  readonly name: string
  readonly args: string
}

/** The Dockerfile's instructions, continuation lines joined, comments and parser directives out. */
const instructions = (text: string): ReadonlyArray<Instruction> => {
  const result: Array<Instruction> = []
  let pending = ""
  let start = 0
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim()
    if (pending === "" && (line === "" || line.startsWith("#"))) return
    if (pending === "") start = index + 1
    if (line.startsWith("#")) return
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `
      return
    }
    const whole = `${pending}${line}`
    pending = ""
    const [name = "", ...rest] = whole.split(/\s+/)
    result.push({ line: start, name: name.toUpperCase(), args: rest.join(" ") })
  })
  return result
}

/** The stages of a multi-stage build, each from its FROM on. */
const stages = (all: ReadonlyArray<Instruction>) =>
  all.reduce<Array<Array<Instruction>>>((split, instruction) => {
    if (instruction.name === "FROM") split.push([instruction])
    else split[split.length - 1]?.push(instruction)
    return split
  }, [])

/** The JSON (exec) form of CMD, ENTRYPOINT or HEALTHCHECK … CMD. */
const execForm = (args: string): ReadonlyArray<string> => {
  const json = args.slice(args.indexOf("["))
  const parsed: unknown = JSON.parse(json)
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === "string")) {
    throw new Error(`not an exec form: ${args}`)
  }
  return parsed
}

const dockerfile = instructions(read("Dockerfile"))
const [build, runtime] = stages(dockerfile)
const inRuntime = (name: string) => (runtime ?? []).filter((instruction) => instruction.name === name)

/** `.dockerignore`'s patterns: top-level names here, matched by their first segment. */
const ignored = new Set(
  read(".dockerignore")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
)

const isRecord = (
  value: YamlSubset.Value | undefined
): value is { readonly [key: string]: YamlSubset.Value } => typeof value === "object" && !Array.isArray(value)

const compose = YamlSubset.parse(read("compose.yaml"))
const services = isRecord(compose) ? compose.services : undefined
const service = (name: string) => {
  const found = isRecord(services) ? services[name] : undefined
  if (!isRecord(found)) throw new Error(`compose.yaml has no service ${name}`)
  return found
}
const text = (value: YamlSubset.Value | undefined): string => (typeof value === "string" ? value : "")
const list = (value: YamlSubset.Value | undefined): ReadonlyArray<string> =>
  Array.isArray(value) ? value.map(text) : []

/** What compose.yaml's `${NAME}`, `${NAME:-default}` and `${NAME:?message}` become with `env`. */
const interpolate = (value: string, env: Readonly<Record<string, string>>) =>
  value.replace(/\$\{(\w+)(?:(:-|:\?)([^}]*))?\}/g, (_, name: string, kind: string | undefined, rest) => {
    const set = env[name]
    if (set !== undefined && set !== "") return set
    if (kind === ":-") return String(rest)
    throw new Error(`compose.yaml needs ${name}${kind === ":?" ? `: ${String(rest)}` : ""}`)
  })

/** What compose's .env holds in the checks: what the file's comment tells a user to set. */
const dotEnv = {
  POSTGRES_PASSWORD: "0123456789abcdef0123456789abcdef",
  JWT_SECRET: "a-jwt-secret-of-at-least-thirty-two-characters"
}

/** The variables a service's container starts with: the image's ENV, then compose's. */
const containerEnv = (name: string): Map<string, string> => {
  const env = new Map<string, string>()
  for (const instruction of inRuntime("ENV")) {
    for (const match of instruction.args.matchAll(/(\w+)=(\S+)/g)) env.set(match[1] ?? "", match[2] ?? "")
  }
  const environment = service(name).environment
  if (!isRecord(environment)) throw new Error(`${name}: environment must be a mapping`)
  for (const [key, value] of Object.entries(environment)) env.set(key, interpolate(text(value), dotEnv))
  return env
}

/** Not configuration: what Node reads. */
const runtimeOnly = new Set(["NODE_ENV"])

/**
 * Loads `config` from `env` and answers the names it asked for: a name compose sets that is
 * not among them is a name the service never reads (a typo, or the other service's name).
 */
const namesRead = <A, E>(config: Effect.Effect<A, E>, provider: ConfigProvider.ConfigProvider) =>
  Effect.gen(function* () {
    const asked = new Set<string>()
    const flat = provider.flattened
    const tracking = ConfigProvider.fromFlat(
      ConfigProvider.makeFlat({
        load: (path, primitive, split) => {
          asked.add(path.join("."))
          return flat.load(path, primitive, split)
        },
        enumerateChildren: (path) => flat.enumerateChildren(path),
        patch: flat.patch
      })
    )
    yield* Effect.withConfigProvider(config, tracking)
    return asked
  })

const expectAllRead = (set: ReadonlyMap<string, string>, asked: ReadonlySet<string>) => {
  const unread = [...set.keys()].filter((name) => !runtimeOnly.has(name) && !asked.has(name))
  expect(unread).toEqual([])
}

/** Runs the built `latchkey` with `args`: its exit code and output. */
const latchkey = (args: ReadonlyArray<string>) => {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
    encoding: "utf8",
    timeout: 30_000
  })
  return { code: result.status, output: `${result.stdout}${result.stderr}` }
}

describe("the Dockerfile", () => {
  it("builds in a stage with every dependency, and runs on production dependencies alone", () => {
    expect(stages(dockerfile).length).toBeGreaterThanOrEqual(2)
    const runs = (stage: ReadonlyArray<Instruction> | undefined) =>
      (stage ?? []).filter((instruction) => instruction.name === "RUN").map((instruction) => instruction.args)
    // The build stage installs the dev dependencies (the compiler) and builds dist/.
    expect(runs(build).some((run) => /npm ci\b/.test(run) && !run.includes("--omit=dev"))).toBe(true)
    expect(runs(build).some((run) => run.includes("npm run build"))).toBe(true)
    // The runtime stage installs the production dependencies from the lock file, takes dist/
    // from the build, and nothing of the build's node_modules.
    expect(runs(runtime).some((run) => /npm ci\b.*--omit=dev/.test(run))).toBe(true)
    const copies = inRuntime("COPY").map((instruction) => instruction.args)
    expect(copies.some((copy) => /--from=\w+ \S*dist\b/.test(copy))).toBe(true)
    expect(copies.some((copy) => copy.includes("node_modules"))).toBe(false)
    // Images with a tag, none `latest` (what hadolint's DL3006 and DL3007 ask).
    for (const from of dockerfile.filter((instruction) => instruction.name === "FROM")) {
      expect(from.args, `line ${from.line}`).toMatch(/^\S+:(?!latest\b)\S+/)
    }
  })

  it("runs as an unprivileged user, with a health check on the readiness answer, and the latchkey command", () => {
    const users = inRuntime("USER")
    expect(users.length).toBeGreaterThan(0)
    const user = users[users.length - 1]?.args ?? ""
    expect(user).not.toMatch(/^(root|0)(:|$)/)
    const entrypoint = inRuntime("ENTRYPOINT")[0]
    expect(entrypoint).toBeDefined()
    // The user is set before the process starts.
    expect(users.every((instruction) => instruction.line < (entrypoint?.line ?? 0))).toBe(true)
    expect(execForm(entrypoint?.args ?? "")).toEqual(["node", "dist/bootstrap/cli.js"])
    expect(existsSync(join(root, "bootstrap/cli.ts"))).toBe(true)

    const healthcheck = inRuntime("HEALTHCHECK")[0]?.args ?? ""
    expect(execForm(healthcheck)).toEqual(["node", "dist/bootstrap/Healthcheck.js"])
    expect(existsSync(join(root, "bootstrap/Healthcheck.ts"))).toBe(true)
    // The check waits longer than the readiness answer waits for the database.
    const timeout = /--timeout=(\d+)s/.exec(healthcheck)?.[1]
    expect(Number(timeout) * 1000).toBeGreaterThan(Duration.toMillis(Readiness.probeTimeout))
  })

  it("copies only what exists and .dockerignore lets through; keeps local state out", () => {
    for (const copy of dockerfile.filter((instruction) => instruction.name === "COPY")) {
      if (copy.args.startsWith("--from=")) continue
      const sources = copy.args.split(/\s+/).slice(0, -1)
      for (const source of sources) {
        expect(existsSync(join(root, source)), `line ${copy.line}: ${source}`).toBe(true)
        expect(ignored.has(source.split("/")[0] ?? ""), `line ${copy.line}: ${source} is ignored`).toBe(false)
      }
    }
    for (const local of ["node_modules", "dist", ".latchkey", ".env", ".git"]) {
      expect(ignored.has(local), local).toBe(true)
    }
  })
})

describe("compose.yaml", () => {
  it("runs PostgreSQL, a mail catcher, the oauth migration once, then both services from the image", () => {
    expect(text(service("postgres").image)).toMatch(/^postgres:\d+/)
    expect(text(service("mail").image)).toMatch(/^axllent\/mailpit:v\d+\.\d+\.\d+$/)
    for (const name of ["oauth-migrate", "oauth", "auth"]) {
      expect(text(service(name).build), name).toBe(".")
      expect(text(service(name).image), name).toBe("latchkey:local")
    }
    const condition = (name: string, on: string) => {
      const dependsOn = service(name).depends_on
      const entry = isRecord(dependsOn) ? dependsOn[on] : undefined
      return isRecord(entry) ? text(entry.condition) : ""
    }
    expect(condition("oauth-migrate", "postgres")).toBe("service_healthy")
    expect(condition("oauth", "oauth-migrate")).toBe("service_completed_successfully")
    expect(condition("auth", "postgres")).toBe("service_healthy")
    expect(text(service("oauth-migrate").restart)).toBe("no")
  })

  it("gives each service a command latchkey has", () => {
    const commands = {
      "oauth-migrate": ["oauth", "migrate"],
      oauth: ["oauth", "serve"],
      auth: ["auth", "serve"]
    }
    for (const [name, command] of Object.entries(commands)) {
      expect(list(service(name).command), name).toEqual(command)
      const help = latchkey([...command, "--help"])
      expect(help.code, help.output).toBe(0)
    }
  })

  it.effect("sets only variables the oauth service reads, to values it starts with", () =>
    Effect.gen(function* () {
      for (const [name, config] of [
        ["oauth", OAuthConfig.server],
        ["oauth-migrate", OAuthConfig.database]
      ] as const) {
        const env = containerEnv(name)
        expectAllRead(env, yield* namesRead(config, ConfigProvider.fromMap(env)))
        const database = new URL(env.get("SQL_URL") ?? "")
        expect(database.hostname).toBe("postgres")
      }
      const oauth = yield* Effect.withConfigProvider(
        OAuthConfig.server,
        ConfigProvider.fromMap(containerEnv("oauth"))
      )
      // The health check asks the port the service listens on, which compose publishes.
      const healthcheck = service("oauth").healthcheck
      expect(list(isRecord(healthcheck) ? healthcheck.test : undefined)).toEqual([
        "CMD",
        "node",
        "dist/bootstrap/Healthcheck.js",
        `http://127.0.0.1:${oauth.port}/health/ready`
      ])
      expect(list(service("oauth").ports)).toContain(`${oauth.port}:${oauth.port}`)
    })
  )

  it.effect("sets only variables the auth service reads, to values it starts with, without a warning", () =>
    Effect.gen(function* () {
      const env = containerEnv("auth")
      const provider = AuthEnvironment.provider(AuthStart.adjust("alone", env))
      expectAllRead(env, yield* namesRead(AuthConfig.server, provider))
      const started = yield* AuthStart.fromVariables("alone", env)
      expect(started.warnings).toEqual([])
      const { config } = started
      expect(new URL(env.get("DATABASE_URL") ?? "").hostname).toBe("postgres")
      // Mail goes to the catcher's SMTP port.
      expect(env.get("AUTHSVC_SMTP_HOST")).toBe("mail")
      expect(config.smtp).toMatchObject({ _tag: "Some", value: { port: 1025 } })
      const healthcheck = service("auth").healthcheck
      expect(list(isRecord(healthcheck) ? healthcheck.test : undefined)).toEqual([
        "CMD",
        "node",
        "dist/bootstrap/Healthcheck.js",
        `http://127.0.0.1:${config.api.port}/health/ready`
      ])
      expect(list(service("auth").ports)).toContain(`${config.api.port}:${config.api.port}`)
    })
  )
})

describe("docs/deployment.md's production configuration", () => {
  const example = (name: string) =>
    new Map(Object.entries(Dotenv.parse(DocBlocks.tested("deployment.md", name))))

  it.effect("auth.env: every variable read, the service starts with it, without a warning", () =>
    Effect.gen(function* () {
      const env = example("auth.env")
      const provider = AuthEnvironment.provider(AuthStart.adjust("alone", env))
      expectAllRead(env, yield* namesRead(AuthConfig.server, provider))
      const started = yield* AuthStart.fromVariables("alone", env)
      expect(started.warnings).toEqual([])
      expect(started.config.api.externalUrl).toBe("https://auth.example.com")
    })
  )

  it.effect("oauth.env: every variable read, the service starts with it", () =>
    Effect.gen(function* () {
      const env = example("oauth.env")
      expectAllRead(env, yield* namesRead(OAuthConfig.server, ConfigProvider.fromMap(env)))
      const config = yield* Effect.withConfigProvider(OAuthConfig.server, ConfigProvider.fromMap(env))
      expect(config.provider).toBe("github")
    })
  )
})
