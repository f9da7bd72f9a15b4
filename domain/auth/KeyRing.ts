import * as Arr from "effect/Array"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as BadJwt from "./BadJwt.js"
import * as SigningKey from "./SigningKey.js"

/** Where a key of the ring comes from. */
export type Source = "configuration" | "store"

/** A key an instance signs or verifies with. */
export interface Entry {
  readonly kid: SigningKey.Kid
  readonly algorithm: SigningKey.Algorithm
  /** The JWK as given or stored: private members included when there are any. */
  readonly jwk: Redacted.Redacted<SigningKey.Jwk>
  readonly source: Source
  /**
   * Until when it verifies (a previous key's `SigningKey.verifiesUntil`): a ring is kept for a
   * while, and a key must not outlive its window by that while.
   */
  readonly until: Option.Option<Date>
}

/** A key given in `AUTHSVC_JWT_KEYS`. */
export interface ConfiguredKey extends Entry {
  readonly source: "configuration"
  /** `key_ops` names `sign`: this key signs new tokens, whatever the store holds. */
  readonly signs: boolean
}

export class InvalidConfiguredKey extends Schema.TaggedError<InvalidConfiguredKey>()("InvalidConfiguredKey", {
  /** Position of the key in `AUTHSVC_JWT_KEYS`; -1 for a fault of the whole list. */
  index: Schema.Number,
  message: Schema.String
}) {}

/** The key type and the members each algorithm needs (RFC 7518): to verify, then also to sign. */
const shapes: Readonly<
  Record<
    SigningKey.Algorithm,
    {
      readonly kty: string
      readonly crv?: string
      readonly verify: ReadonlyArray<string>
      readonly sign: ReadonlyArray<string>
    }
  >
> = {
  RS256: { kty: "RSA", verify: ["n", "e"], sign: ["d"] },
  ES256: { kty: "EC", crv: "P-256", verify: ["x", "y"], sign: ["d"] },
  EdDSA: { kty: "OKP", crv: "Ed25519", verify: ["x"], sign: ["d"] },
  HS256: { kty: "oct", verify: ["k"], sign: ["k"] },
  RS512: { kty: "RSA", verify: ["n", "e"], sign: ["d"] },
  ES512: { kty: "EC", crv: "P-521", verify: ["x", "y"], sign: ["d"] }
}

const isAlgorithm = Schema.is(SigningKey.Algorithm)
const decodeKid = Schema.decodeUnknownOption(SigningKey.Kid)

const configuredKey = (
  jwk: Record<string, unknown>,
  index: number
): Either.Either<ConfiguredKey, InvalidConfiguredKey> => {
  const fail = (message: string) => Either.left(new InvalidConfiguredKey({ index, message }))
  const kid = decodeKid(jwk.kid)
  if (Option.isNone(kid)) return fail("every key needs a kid: printable ASCII, at most 255 characters")
  const alg = jwk.alg
  if (!isAlgorithm(alg)) {
    return fail(`key ${kid.value}: alg must be one of ${SigningKey.Algorithm.literals.join(", ")}`)
  }
  const shape = shapes[alg]
  if (jwk.kty !== shape.kty || (shape.crv !== undefined && jwk.crv !== shape.crv)) {
    return fail(
      `key ${kid.value}: ${alg} needs kty ${shape.kty}${shape.crv === undefined ? "" : ` and crv ${shape.crv}`}`
    )
  }
  const ops = jwk.key_ops
  if (ops !== undefined && !(Array.isArray(ops) && ops.every((op) => typeof op === "string"))) {
    return fail(`key ${kid.value}: key_ops must be a list of strings`)
  }
  const signs = Array.isArray(ops) && ops.includes("sign")
  const needed = signs ? [...shape.verify, ...shape.sign] : shape.verify
  const missing = needed.filter((member) => typeof jwk[member] !== "string" || jwk[member] === "")
  if (missing.length > 0) return fail(`key ${kid.value}: missing ${missing.join(", ")}`)
  return Either.right({
    kid: kid.value,
    algorithm: alg,
    jwk: Redacted.make(jwk),
    source: "configuration",
    signs,
    until: Option.none()
  })
}

/**
 * Reads `AUTHSVC_JWT_KEYS` (already parsed into JWK records). As in Supabase Auth, the key whose
 * `key_ops` names `sign` signs, and there is at most one; the others verify only. A list with no
 * signing key is accepted: the stored current key signs then, and the listed keys still verify
 * (say, keys of a deployment being moved onto stored keys).
 */
export const fromConfiguration = (
  jwks: ReadonlyArray<Record<string, unknown>>
): Either.Either<ReadonlyArray<ConfiguredKey>, InvalidConfiguredKey> =>
  Either.gen(function* () {
    const keys = yield* Either.all(jwks.map(configuredKey))
    const kids = new Set<string>()
    for (const [index, key] of keys.entries()) {
      if (kids.has(key.kid)) {
        return yield* Either.left(
          new InvalidConfiguredKey({ index, message: `kid ${key.kid} appears twice` })
        )
      }
      kids.add(key.kid)
    }
    if (keys.filter((key) => key.signs).length > 1) {
      return yield* Either.left(
        new InvalidConfiguredKey({
          index: -1,
          message: "multiple signing keys detected, only 1 signing key is supported"
        })
      )
    }
    return keys
  })

/** The keys one instance signs and verifies with at a moment, configured and stored. */
export interface KeyRing {
  /** The key new tokens are signed with. */
  readonly signing: Option.Option<Entry>
  /** Every key a token may name by `kid`. */
  readonly verifying: ReadonlyMap<string, Entry>
  /** The keys of the JWKS, in its order, each with its public JWK. */
  readonly published: ReadonlyArray<{ readonly entry: Entry; readonly jwk: SigningKey.Jwk }>
}

const liveAt = (entry: Entry, now: Date) =>
  Option.match(entry.until, { onNone: () => true, onSome: (until) => now.getTime() < until.getTime() })

/** The public keys of the JWKS at `now`. */
export const publishedAt = (ring: KeyRing, now: Date): ReadonlyArray<SigningKey.Jwk> =>
  ring.published.filter(({ entry }) => liveAt(entry, now)).map(({ jwk }) => jwk)

/**
 * Puts configured and stored keys together. Configured keys win: a stored key with the kid of a
 * configured one is left out, and a configured signing key signs rather than the stored current
 * one. Stored keys verify and are published while `SigningKey.published` says so; configured
 * ones always, except `oct` keys, which verify but are never published (their `k` is the secret).
 */
export const make = (
  configured: ReadonlyArray<ConfiguredKey>,
  stored: ReadonlyArray<SigningKey.SigningKey>,
  now: Date,
  lifetimes: SigningKey.Lifetimes
): KeyRing => {
  const configuredKids = new Set(configured.map((key) => key.kid))
  const live = Arr.sort(
    SigningKey.published(stored, now, lifetimes).filter((key) => !configuredKids.has(key.kid)),
    SigningKey.jwksOrder
  )
  const storedEntries = Arr.filterMap(live, (key) =>
    Option.map(
      key.privateJwk,
      (jwk): Entry => ({
        kid: key.kid,
        algorithm: key.algorithm,
        jwk,
        source: "store",
        until: SigningKey.verifiesUntil(key, lifetimes)
      })
    )
  )
  const entries: ReadonlyArray<Entry> = [...configured, ...storedEntries]
  const storedSigner = Option.flatMap(SigningKey.current(live), (key) =>
    Arr.findFirst(storedEntries, (entry) => entry.kid === key.kid)
  )
  const configuredSigner = Arr.findFirst(configured, (key) => key.signs)
  return {
    signing: Option.orElse(configuredSigner, () => storedSigner),
    verifying: new Map(entries.map((entry) => [entry.kid, entry])),
    published: Arr.filterMap(entries, (entry) =>
      Option.map(SigningKey.publicJwk(Redacted.value(entry.jwk), entry.kid, entry.algorithm), (jwk) => ({
        entry,
        jwk
      }))
    )
  }
}

/** What checks a token's signature. */
export type Verifier =
  | { readonly _tag: "Key"; readonly entry: Entry }
  /** `JWT_SECRET`, for HS256 tokens whose `kid` names no key (or that have none). */
  | { readonly _tag: "Secret" }

/** Every algorithm name a JWS library knows of; others are "unavailable" rather than "invalid". */
const knownAlgorithms: ReadonlySet<string> = new Set([
  "HS256",
  "HS384",
  "HS512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "none"
])

/**
 * Which key checks a token with this protected header, in Supabase Auth's order: the algorithm
 * must be allowed (`JWT_VALID_METHODS`); the key is the one its `kid` names; failing that, an
 * HS256 token falls back to `JWT_SECRET` (tokens from before key ids, and service keys made
 * with the secret); anything else is refused. A previous key past its window counts as unknown. The key's own algorithm is checked against the
 * token's by the caller, as a signature failure.
 */
export const verifierFor = (
  ring: KeyRing,
  header: { readonly alg: unknown; readonly kid: unknown },
  validMethods: ReadonlyArray<SigningKey.Algorithm>,
  hasSecret: boolean,
  now: Date
): Either.Either<Verifier, BadJwt.BadJwt> => {
  const alg = header.alg
  if (typeof alg !== "string" || !knownAlgorithms.has(alg))
    return Either.left(BadJwt.algorithmUnavailable(alg))
  if (!isAlgorithm(alg) || !validMethods.includes(alg)) return Either.left(BadJwt.algorithmNotAllowed(alg))
  const entry = typeof header.kid === "string" ? ring.verifying.get(header.kid) : undefined
  if (entry !== undefined && liveAt(entry, now)) return Either.right({ _tag: "Key", entry })
  if (alg === "HS256" && hasSecret) return Either.right({ _tag: "Secret" })
  return Either.left(BadJwt.unknownKey(header.kid, alg))
}
