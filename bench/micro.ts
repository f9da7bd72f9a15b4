/**
 * `npm run bench:micro`: what single building blocks of a request cost on this machine, in
 * microseconds of one core, without I/O — the costs docs/performance-history.md points at:
 * decoding a row as adapters/postgres/Rows.ts does (synchronously, in one step) against an
 * effect per row, spans (`Effect.withSpan`, `Effect.fn`, `Telemetry.fn` with tracing off) against a bare
 * effect, and an access token's RS256 signature through WebCrypto against node:crypto.
 */
import { generateKeyPairSync } from "node:crypto"
import { readFileSync } from "node:fs"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as jose from "jose"
import * as JwsSignature from "../adapters/crypto/auth/JwsSignature.js"
import * as Rows from "../adapters/postgres/Rows.js"
import * as Telemetry from "../application/Telemetry.js"
import * as AccessToken from "../domain/oauth/AccessToken.js"
import { Client } from "../domain/oauth/Client.js"
import * as RefreshTokenFamily from "../domain/RefreshTokenFamily.js"

const iterations = 20_000

/** Mean microseconds per call after a warm-up of the same length. */
const time = (label: string, run: () => void) => {
  for (let i = 0; i < iterations; i++) run()
  const started = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) run()
  const micros = Number(process.hrtime.bigint() - started) / 1000 / iterations
  console.log(`${label.padEnd(72)} ${micros.toFixed(1).padStart(7)} µs`)
  return micros
}

const now = new Date()
const clientRow = {
  id: "cli",
  name: "latchkey CLI",
  type: "public",
  origin: "builtin",
  redirectUris: ["http://127.0.0.1/callback", "http://[::1]/callback", "http://localhost/callback"],
  secretHash: null,
  createdAt: now,
  lastUsedAt: null
}
const familyRow = {
  id: crypto.randomUUID(),
  userId: crypto.randomUUID(),
  clientId: "cli",
  grantId: null,
  scope: null,
  resource: null,
  generation: 1,
  rotatedAt: now,
  expiresAt: now,
  revokedAt: null,
  createdAt: now
}
const tokenRow = {
  hash: "0".repeat(64),
  userId: crypto.randomUUID(),
  clientId: "cli",
  grantId: null,
  familyId: crypto.randomUUID(),
  scope: null,
  resource: null,
  issuedAt: now,
  expiresAt: now,
  revokedAt: null
}

/** An effect per row, as Rows.ts did before decisions/0006. */
const perRow = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (rows: ReadonlyArray<unknown>) => Effect.runSync(Effect.forEach(rows, (row) => decode(row)))
}
/** As Rows.decodeAll does it now. */
const synchronous = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Rows.decodeAll(schema)
  return (rows: ReadonlyArray<unknown>) => Effect.runSync(decode(Effect.succeed(rows)))
}

console.log(`Node ${process.version}, ${iterations.toLocaleString("en-US")} iterations each\n`)
console.log("Decoding one row (adapters/postgres/Rows.ts)")
const decoding = <A, I>(name: string, schema: Schema.Schema<A, I>, row: unknown) => {
  const decodePerRow = perRow(schema)
  const decodeSynchronously = synchronous(schema)
  time(`  ${name}: an effect per row (before)`, () => decodePerRow([row]))
  time(`  ${name}: synchronously (Rows.ts now)`, () => decodeSynchronously([row]))
}
decoding("Client", Client, clientRow)
decoding("RefreshTokenFamily.Family", RefreshTokenFamily.Family, familyRow)
decoding("AccessToken", AccessToken.AccessToken, tokenRow)

console.log("\nSpans (each run inside one Effect.runSync of 100)")
const hundred = <A>(effect: () => Effect.Effect<A>) =>
  Effect.forEach(Array.from({ length: 100 }), effect, { discard: true })
const bare = hundred(() => Effect.void)
const spans = hundred(() => Effect.withSpan(Effect.void, "span", { attributes: { "client.id": "cli" } }))
const spansWithoutStack = hundred(() =>
  Effect.withSpan(Effect.void, "span", { attributes: { "client.id": "cli" }, captureStackTrace: false })
)
const traced = Effect.fn("traced")(function* () {
  return yield* Effect.void
})
const fns = hundred(() => traced())
const floor = time("  100 × Effect.void", () => Effect.runSync(bare)) / 100
const perSpan = time("  100 × Effect.withSpan(Effect.void) (per 100)", () => Effect.runSync(spans)) / 100
const perSpanNoStack =
  time("  100 × Effect.withSpan(…, { captureStackTrace: false }) (per 100)", () =>
    Effect.runSync(spansWithoutStack)
  ) / 100
const perFn = time("  100 × Effect.fn(name)(…)() (per 100)", () => Effect.runSync(fns)) / 100
const tracingOff = <A>(effect: Effect.Effect<A>) => Effect.withTracerEnabled(effect, false)
const perDisabledSpan =
  time("  100 × Effect.withSpan(…), tracing off (per 100)", () =>
    Effect.runSync(tracingOff(spansWithoutStack))
  ) / 100
const telemetryFn = Telemetry.fn("span")(
  () => Effect.void,
  () => ({ "client.id": "cli" })
)
const tracingSpans = hundred(() => telemetryFn())
const perTracingSpan =
  time("  100 × Telemetry.fn(…)(), tracing off (per 100)", () => Effect.runSync(tracingOff(tracingSpans))) /
  100
console.log(
  `\n  one span ≈ ${(perSpan - floor).toFixed(1)} µs (${(perSpanNoStack - floor).toFixed(1)} µs without its stack trace); one Effect.fn call ≈ ${(perFn - floor).toFixed(1)} µs`
)
console.log(
  `  with tracing off: Effect.withSpan ≈ ${(perDisabledSpan - floor).toFixed(1)} µs, Telemetry.fn ≈ ${(perTracingSpan - floor).toFixed(1)} µs`
)

/** CPU of this process's main thread so far, in ms (Linux: its task's utime + stime, in ticks of 10 ms). */
const mainThreadMillis = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const cpuMillis = () => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

/**
 * `count` signatures, 32 in flight at a time as a loaded server has them: the main thread's
 * milliseconds a signature (what the event loop pays) and the whole process's (libuv's pool too).
 */
const signatures = async (label: string, signOnce: () => Promise<unknown>, count = 3_000) => {
  await Promise.all(Array.from({ length: 64 }, signOnce))
  const [main, all] = [mainThreadMillis(), cpuMillis()]
  let left = count
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (left-- > 0) await signOnce()
    })
  )
  const perMain = (mainThreadMillis() - main) / count
  const perAll = (cpuMillis() - all) / count
  console.log(`${label.padEnd(56)} main thread ${perMain.toFixed(3)} ms, all threads ${perAll.toFixed(3)} ms`)
}

console.log("\nRS256 signatures of an access token (adapters/crypto/auth/JwsSignature.ts), 32 at a time")
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
const webKey = await jose.importJWK({ ...privateKey.export({ format: "jwk" }), alg: "RS256" }, "RS256")
const header = { alg: "RS256", kid: "k", typ: "JWT" }
const claims = JSON.stringify({
  sub: crypto.randomUUID(),
  role: "authenticated",
  aal: "aal2",
  exp: 2_000_000_000
})
const signingInput = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(claims).toString("base64url")}`
await signatures("  WebCrypto, through jose (before)", () =>
  new jose.CompactSign(Buffer.from(claims)).setProtectedHeader(header).sign(webKey)
)
await signatures("  node:crypto on libuv's pool (JwsSignature.signature)", () =>
  JwsSignature.signature("RS256", signingInput, privateKey)
)
