/**
 * The command line and environment every bench reads: `--profile[=<kind>]`, `--only=<kind>`,
 * `--no-write`, and the BENCH_* numbers. Each bench names its own kinds.
 */

const argv = process.argv.slice(2)

/** A positive number from the environment, else `fallback`. */
export const numberFromEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

/** What every bench shares: where PostgreSQL is and how long each load runs. */
export const common = {
  adminUrl: process.env.SQL_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  connections: numberFromEnv("BENCH_CONNECTIONS", 32),
  warmupSeconds: numberFromEnv("BENCH_WARMUP", 2),
  durationSeconds: numberFromEnv("BENCH_DURATION", 10),
  quietWaitSeconds: numberFromEnv("BENCH_QUIET_WAIT", 60)
}

export interface Selection<Kind extends string> {
  /** `--profile[=<kind>]`: that run only, the server profiled. */
  readonly profiled: Kind | undefined
  /** `--only=<kind>` (or the profiled kind): that run alone. */
  readonly only: Kind | undefined
  /**
   * Whether the run is recorded (bench/results/, the current table of docs/performance.md): a
   * full, unprofiled run without `--no-write`.
   */
  readonly record: boolean
}

/**
 * Reads the flags against a bench's kinds. `--profile` alone profiles `defaultProfiled`; the
 * last `--profile` flag wins, so `npm run bench:profile -- --profile=introspect` (the script
 * passes `--profile`) works.
 */
export const select = <Kind extends string>(
  kinds: ReadonlyArray<Kind>,
  defaultProfiled: Kind
): Selection<Kind> => {
  const kindOf = (flag: string, value: string): Kind => {
    const kind = kinds.find((k) => k === value)
    if (kind === undefined) throw new Error(`${flag}= takes ${kinds.join(", ")}`)
    return kind
  }
  const profileFlag = argv.filter((arg) => arg === "--profile" || arg.startsWith("--profile=")).at(-1)
  const profiled =
    profileFlag === undefined
      ? undefined
      : profileFlag === "--profile"
        ? defaultProfiled
        : kindOf("--profile", profileFlag.slice("--profile=".length))
  const onlyFlag = argv.find((arg) => arg.startsWith("--only="))
  const only =
    profiled ?? (onlyFlag === undefined ? undefined : kindOf("--only", onlyFlag.slice("--only=".length)))
  return { profiled, only, record: only === undefined && !argv.includes("--no-write") }
}

/**
 * What the served process gets besides its bench's own variables, from `BENCH_SERVER_ENV` (a
 * JSON object of strings), and the port its database URL names instead of PostgreSQL's, from
 * `BENCH_DATABASE_PORT` (a pooler in front of it): how the cost of a setting or of a pooler is
 * measured on the same bench (docs/deployment.md).
 */
export const serverOverrides = (): {
  readonly env: Readonly<Record<string, string>>
  readonly databasePort: string | undefined
} => {
  const raw = process.env.BENCH_SERVER_ENV
  const parsed: unknown = raw === undefined || raw === "" ? {} : JSON.parse(raw)
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("BENCH_SERVER_ENV must be a JSON object of strings")
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== "string") throw new Error("BENCH_SERVER_ENV must be a JSON object of strings")
    env[name] = value
  }
  const port = process.env.BENCH_DATABASE_PORT
  return { env, databasePort: port === undefined || port === "" ? undefined : port }
}
