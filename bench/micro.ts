/**
 * `npm run bench:micro`: what single building blocks of a request cost on this machine, in
 * microseconds of one core, without I/O — the costs docs/performance.md points at: decoding a
 * row the way adapters/postgres/Rows.ts does (a decoder built for every query) against a decoder
 * built once, and spans (`Effect.withSpan`, `Effect.fn`) against a bare effect.
 */
import { Effect, Schema } from "effect"
import { Client } from "../domain/Client.js"
import * as RefreshTokenFamily from "../domain/RefreshTokenFamily.js"
import * as UserToken from "../domain/UserToken.js"

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

/** As Rows.decodeAll does it: a new array schema, hence a new parser, for every query. */
const perQuery =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (rows: ReadonlyArray<unknown>) =>
    Effect.runSync(Schema.decodeUnknown(Schema.Array(schema))(rows))
/** The same decoder built once per schema. */
const hoisted = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => Effect.runSync(decode(rows))
}

console.log(`Node ${process.version}, ${iterations.toLocaleString("en-US")} iterations each\n`)
console.log("Decoding one row (adapters/postgres/Rows.ts)")
for (const [name, schema, row] of [
  ["Client", Client, clientRow],
  ["RefreshTokenFamily.Family", RefreshTokenFamily.Family, familyRow],
  ["UserToken", UserToken.UserToken, tokenRow]
] as const) {
  const decodePerQuery = perQuery<unknown, unknown>(schema as Schema.Schema<unknown, unknown>)
  const decodeHoisted = hoisted<unknown, unknown>(schema as Schema.Schema<unknown, unknown>)
  time(`  ${name}: decoder built per query (as now)`, () => decodePerQuery([row]))
  time(`  ${name}: decoder built once`, () => decodeHoisted([row]))
}

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
console.log(
  `\n  one span ≈ ${(perSpan - floor).toFixed(1)} µs (${(perSpanNoStack - floor).toFixed(1)} µs without its stack trace); one Effect.fn call ≈ ${(perFn - floor).toFixed(1)} µs`
)
