import { pathToFileURL } from "node:url"

/**
 * The container image's `HEALTHCHECK` (Dockerfile): `node dist/bootstrap/Healthcheck.js [URL…]`
 * asks the readiness answer (`GET /health/ready`: the database answered) and exits 0 when the
 * service is ready, 1 when not. It is a script of its own, not a `latchkey` command, so that a
 * check every few seconds loads no command-line parser and no Effect runtime, and the image needs
 * no curl.
 *
 * With URLs, each of them must answer 200. Without, it asks every port a service of the image
 * may listen on, as the environment sets them (`AUTHSVC_API_PORT`, `GOTRUE_API_PORT`, `PORT`,
 * the defaults 8081 and 8080), on 127.0.0.1, since one image runs either service or both: ready
 * when at least one of them answers and every one that answers says 200. A port where nothing
 * listens is not this container's service; one that accepts and then stalls is, and fails.
 */

/** Longer than the readiness answer's own wait for the database (Readiness.probeTimeout). */
const answerWithinMillis = 4_000

/** What one URL answered. */
export type Outcome =
  | { readonly url: string; readonly _tag: "Ready" }
  | { readonly url: string; readonly _tag: "NotReady"; readonly reason: string }
  /** Nothing listens there. */
  | { readonly url: string; readonly _tag: "Absent" }

const isPort = (value: string | undefined): value is string =>
  value !== undefined && /^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65_535

/** The readiness URLs to ask when none is named, from the service's port variables. */
export const defaultTargets = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const ports = [env.AUTHSVC_API_PORT, env.GOTRUE_API_PORT, env.PORT, "8081", "8080"].filter(isPort)
  return [...new Set(ports.map(Number))].map((port) => `http://127.0.0.1:${port}/health/ready`)
}

const refused = (error: unknown): boolean => {
  const cause = error instanceof Error ? error.cause : undefined
  return typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ECONNREFUSED"
}

/** Asks one URL. */
export const probe = async (url: string, withinMillis = answerWithinMillis): Promise<Outcome> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(withinMillis) })
    await response.arrayBuffer()
    return response.status === 200
      ? { url, _tag: "Ready" }
      : { url, _tag: "NotReady", reason: `answered ${response.status}` }
  } catch (error) {
    if (refused(error)) return { url, _tag: "Absent" }
    const reason =
      error instanceof Error && error.name === "TimeoutError" ? "no answer in time" : String(error)
    return { url, _tag: "NotReady", reason }
  }
}

/** Whether the outcomes make a ready container; `named`: the URLs were given, each must answer. */
export const isReady = (outcomes: ReadonlyArray<Outcome>, named: boolean): boolean =>
  named
    ? outcomes.length > 0 && outcomes.every((outcome) => outcome._tag === "Ready")
    : outcomes.some((outcome) => outcome._tag === "Ready") &&
      outcomes.every((outcome) => outcome._tag !== "NotReady")

const describe = (outcome: Outcome): string =>
  outcome._tag === "Ready"
    ? `${outcome.url}: ready`
    : outcome._tag === "Absent"
      ? `${outcome.url}: nothing listens`
      : `${outcome.url}: not ready (${outcome.reason})`

/** Asks the URLs (or the defaults), prints one line for each, and answers the exit code. */
export const main = async (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>
): Promise<number> => {
  const named = args.length > 0
  const outcomes = await Promise.all((named ? args : defaultTargets(env)).map((url) => probe(url)))
  for (const outcome of outcomes) console.log(describe(outcome))
  return isReady(outcomes, named) ? 0 : 1
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2), process.env)
}
