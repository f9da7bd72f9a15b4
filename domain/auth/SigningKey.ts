import * as Arr from "effect/Array"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Order from "effect/Order"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Time from "../Time.js"
import { Timestamp } from "../Timestamp.js"

/** The JWS algorithms the auth service signs and verifies access tokens with. */
export const Algorithm = Schema.Literal("RS256", "ES256", "EdDSA", "HS256", "RS512", "ES512")
export type Algorithm = typeof Algorithm.Type

/**
 * The algorithms of a stored key: asymmetric ones only, whose public half can be published.
 * HS256 keys come from configuration alone (`JWT_SECRET`, `oct` keys in `AUTHSVC_JWT_KEYS`):
 * their secret verifies as well as signs, so it is never published and never generated here.
 */
export const StoredAlgorithm = Schema.Literal("RS256", "ES256", "EdDSA")
export type StoredAlgorithm = typeof StoredAlgorithm.Type

export const defaultAlgorithm: StoredAlgorithm = "RS256"

/**
 * What `JWT_VALID_METHODS` allows when it is not set: every algorithm a key may have. HS256
 * stays in for compatibility: tokens signed with `JWT_SECRET` by other tools keep working.
 */
export const defaultValidMethods: ReadonlyArray<Algorithm> = [
  "RS256",
  "ES256",
  "EdDSA",
  "HS256",
  "RS512",
  "ES512"
]

/** A key id, the JWS header's `kid`: printable ASCII, as it travels in headers and URLs. */
export const Kid = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(255),
  Schema.pattern(/^[\x21-\x7e]+$/, { message: () => "a key id is printable ASCII without spaces" }),
  Schema.brand("Kid")
)
export type Kid = typeof Kid.Type

/** A JSON Web Key as JSON (RFC 7517), private members included when it has them. */
export const Jwk = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type Jwk = typeof Jwk.Type

/**
 * Where a stored key is in its life:
 * - `standby`: published in the JWKS, verifying, not yet signing, so that every cache of the
 *   JWKS (clients keep it 10 minutes) holds it before the first token it signs;
 * - `current`: signs new tokens; at most one key is current;
 * - `previous`: signs no more, still published and verifying until every token it signed has
 *   expired (see `verifiesUntil`), then neither;
 * - `retired`: gone, by an operator's decision; its private material is wiped.
 */
export const Status = Schema.Literal("standby", "current", "previous", "retired")
export type Status = typeof Status.Type

const optional = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.OptionFromNullishOr(schema, null)

/** A signing key as the store holds it, shared by every instance of the service. */
export class SigningKey extends Schema.Class<SigningKey>("SigningKey")({
  kid: Kid,
  algorithm: StoredAlgorithm,
  status: Status,
  /**
   * The private JWK, which signing needs in full. Redacted so that a key printed or logged does
   * not show it; none once the key is retired.
   */
  privateJwk: optional(Schema.Redacted(Jwk)),
  createdAt: Timestamp,
  /** When it became current. */
  activatedAt: optional(Timestamp),
  /** When another key replaced it as current: the last moment this key signed. */
  stoppedSigningAt: optional(Timestamp),
  retiredAt: optional(Timestamp)
}) {}

/** How long what a key signed can live: the access-token lifetime and the readers' cache. */
export interface Lifetimes {
  /** `JWT_EXP`. */
  readonly token: Duration.Duration
  /**
   * How long an instance may keep signing with a key after another instance rotated it away:
   * the time its cached view of the stored keys is reused. A token signed that late expires
   * that much after `stoppedSigningAt + token`.
   */
  readonly readerCache: Duration.Duration
}

/** The key read from the store (`before`) and the key to write in its place (`after`). */
export interface Change {
  readonly before: SigningKey
  readonly after: SigningKey
}

export class UnknownSigningKey extends Schema.TaggedError<UnknownSigningKey>()("UnknownSigningKey", {
  kid: Schema.String,
  message: Schema.String
}) {}

export class CurrentKeyNotRetirable extends Schema.TaggedError<CurrentKeyNotRetirable>()(
  "CurrentKeyNotRetirable",
  { kid: Kid, message: Schema.String }
) {}

export class KeyAlreadyRetired extends Schema.TaggedError<KeyAlreadyRetired>()("KeyAlreadyRetired", {
  kid: Kid,
  message: Schema.String
}) {}

export class NoStandbyKey extends Schema.TaggedError<NoStandbyKey>()("NoStandbyKey", {
  message: Schema.String
}) {}

export class AlgorithmNotAllowed extends Schema.TaggedError<AlgorithmNotAllowed>()("AlgorithmNotAllowed", {
  algorithm: Algorithm,
  message: Schema.String
}) {}

interface NewKey {
  readonly kid: Kid
  readonly algorithm: StoredAlgorithm
  readonly privateJwk: Jwk
}

const fresh = (key: NewKey, status: Status, now: Date, activatedAt: Option.Option<Date>) =>
  new SigningKey({
    kid: key.kid,
    algorithm: key.algorithm,
    status,
    privateJwk: Option.some(Redacted.make(key.privateJwk)),
    createdAt: now,
    activatedAt,
    stoppedSigningAt: Option.none(),
    retiredAt: Option.none()
  })

/**
 * Whether keys of `algorithm` may sign: refused when `JWT_VALID_METHODS` leaves it out, since
 * such a key, once current, would sign tokens that no instance accepts.
 */
export const checkAllowed = (
  algorithm: StoredAlgorithm,
  validMethods: ReadonlyArray<Algorithm>
): Either.Either<void, AlgorithmNotAllowed> =>
  validMethods.includes(algorithm)
    ? Either.void
    : Either.left(
        new AlgorithmNotAllowed({
          algorithm,
          message: `${algorithm} is not in JWT_VALID_METHODS: tokens signed with this key would be refused`
        })
      )

/** A new standby key, if its algorithm is allowed (`checkAllowed`). */
export const add = (
  key: NewKey,
  validMethods: ReadonlyArray<Algorithm>,
  now: Date
): Either.Either<SigningKey, AlgorithmNotAllowed> =>
  Either.map(checkAllowed(key.algorithm, validMethods), () => fresh(key, "standby", now, Option.none()))

/** The first key of a service that has none: current at once, since nothing signs yet. */
export const first = (key: NewKey, now: Date): SigningKey => fresh(key, "current", now, Option.some(now))

/** The key that signs new tokens, if any. */
export const current = (keys: ReadonlyArray<SigningKey>): Option.Option<SigningKey> =>
  Arr.findFirst(keys, (key) => key.status === "current")

const byCreation = Order.mapInput(Order.Date, (key: SigningKey) => key.createdAt)

/**
 * Rotation: the standby key published longest becomes current (the one most likely in every
 * cache of the JWKS), the current key becomes previous. Refused without a standby key: a key
 * that signs before it is published fails verification at clients holding a cached JWKS.
 */
export const rotate = (
  keys: ReadonlyArray<SigningKey>,
  now: Date
): Either.Either<ReadonlyArray<Change>, NoStandbyKey> => {
  const standby = Arr.head(
    Arr.sort(
      Arr.filter(keys, (key) => key.status === "standby"),
      byCreation
    )
  )
  if (Option.isNone(standby)) {
    return Either.left(
      new NoStandbyKey({
        message:
          "there is no standby key to rotate to: add one first, and rotate once it has been published for longer than clients cache the JWKS (10 minutes)"
      })
    )
  }
  const promote: Change = {
    before: standby.value,
    after: new SigningKey({ ...standby.value, status: "current", activatedAt: Option.some(now) })
  }
  const demote = Option.map(
    current(keys),
    (key): Change => ({
      before: key,
      after: new SigningKey({ ...key, status: "previous", stoppedSigningAt: Option.some(now) })
    })
  )
  // Demotion first: a store that allows one current key at a time can apply them in order.
  return Either.right(Option.match(demote, { onNone: () => [promote], onSome: (d) => [d, promote] }))
}

/**
 * Retiring a key: it leaves the JWKS and tokens it signed stop verifying, at once. Refused for
 * the current key, which signs every new token: rotate to another key first. The private
 * material is dropped, since nothing will sign or verify with it again.
 */
export const retire = (
  keys: ReadonlyArray<SigningKey>,
  kid: Kid,
  now: Date
): Either.Either<Change, UnknownSigningKey | CurrentKeyNotRetirable | KeyAlreadyRetired> => {
  const found = Arr.findFirst(keys, (key) => key.kid === kid)
  if (Option.isNone(found)) {
    return Either.left(new UnknownSigningKey({ kid, message: `there is no stored signing key ${kid}` }))
  }
  const key = found.value
  switch (key.status) {
    case "current":
      return Either.left(
        new CurrentKeyNotRetirable({
          kid,
          message: `key ${kid} is the current key and signs every new token: rotate to another key before retiring it`
        })
      )
    case "retired":
      return Either.left(new KeyAlreadyRetired({ kid, message: `key ${kid} is already retired` }))
    default:
      return Either.right({
        before: key,
        after: new SigningKey({
          ...key,
          status: "retired",
          privateJwk: Option.none(),
          retiredAt: Option.some(now)
        })
      })
  }
}

/**
 * Until when a previous key verifies: every token it signed, the last ones signed by an instance
 * that had not yet seen the rotation included, expires by then. None for keys of other statuses.
 */
export const verifiesUntil = (key: SigningKey, lifetimes: Lifetimes): Option.Option<Date> =>
  key.status === "previous"
    ? Option.map(key.stoppedSigningAt, (stopped) =>
        Time.plus(Time.plus(stopped, lifetimes.token), lifetimes.readerCache)
      )
    : Option.none()

/** A key's phase at `now`: its status, with `expired` for a previous key past `verifiesUntil`. */
export type Phase = Status | "expired"

export const phase = (key: SigningKey, now: Date, lifetimes: Lifetimes): Phase =>
  Option.match(verifiesUntil(key, lifetimes), {
    onNone: () => key.status,
    onSome: (until) => (Time.isAtOrAfter(now, until) ? "expired" : key.status)
  })

/**
 * The keys published in the JWKS at `now`, which are also the keys that verify: standby (so that
 * caches hold them before they sign), current, and previous ones until `verifiesUntil`.
 */
export const published = (
  keys: ReadonlyArray<SigningKey>,
  now: Date,
  lifetimes: Lifetimes
): ReadonlyArray<SigningKey> =>
  keys.filter((key) => {
    const at = phase(key, now, lifetimes)
    return at === "standby" || at === "current" || at === "previous"
  })

/** The members a public JWK of each key type has (RFC 7518 §6); anything else stays out. */
const publicMembers: Readonly<Record<string, ReadonlyArray<string>>> = {
  RSA: ["kty", "n", "e"],
  EC: ["kty", "crv", "x", "y"],
  OKP: ["kty", "crv", "x"]
}

/**
 * The public half of a key as the JWKS shows it, with `kid`, `alg`, `use: "sig"` and
 * `key_ops: ["verify"]` as Supabase Auth publishes them (WebCrypto's `importKey` in clients
 * checks `use`, `key_ops` and `alg`). Built from an allow-list of public members, so a private
 * member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`) or a symmetric `k` can never slip through;
 * none for a key type that has no public half (`oct`).
 */
export const publicJwk = (jwk: Jwk, kid: string, algorithm: Algorithm): Option.Option<Jwk> => {
  const kty = jwk.kty
  const members = typeof kty === "string" ? publicMembers[kty] : undefined
  if (members === undefined) return Option.none()
  const out: Record<string, unknown> = {}
  for (const member of members) {
    if (jwk[member] !== undefined) out[member] = jwk[member]
  }
  return Option.some({ ...out, kid, alg: algorithm, use: "sig", key_ops: ["verify"] })
}

/** JWKS order: the current key first, for tools that take the first key; then by age. */
export const jwksOrder: Order.Order<SigningKey> = Order.combine(
  Order.mapInput(Order.boolean, (key: SigningKey) => key.status !== "current"),
  byCreation
)

export const isStoredAlgorithm = Schema.is(StoredAlgorithm)

/** Lifetimes from any duration input (`"1 hour"`, milliseconds, a `Duration`). */
export const lifetimes = (token: Duration.DurationInput, readerCache: Duration.DurationInput): Lifetimes => ({
  token: Duration.decode(token),
  readerCache: Duration.decode(readerCache)
})
