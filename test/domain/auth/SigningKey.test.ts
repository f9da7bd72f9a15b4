import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SigningKey from "../../../domain/auth/SigningKey.js"

const second = 1000
const minute = 60 * second
const hour = 60 * minute
const t0 = Date.UTC(2025, 0, 1, 12)
const at = (ms: number) => new Date(t0 + ms)

const lifetimes = SigningKey.lifetimes(Duration.hours(1), Duration.seconds(30))
const material = {
  kty: "RSA",
  n: "n",
  e: "AQAB",
  d: "secret-d",
  p: "p",
  q: "q",
  dp: "dp",
  dq: "dq",
  qi: "qi"
}
const kid = (value: string) => SigningKey.Kid.make(value)

const newKey = (name: string) => ({ kid: kid(name), algorithm: "RS256" as const, privateJwk: material })

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) throw new Error(`expected a right, got ${String(either.left)}`)
  return either.right
}

/** Carries out changes as the store does: each `after` replaces the key with its kid. */
const apply = (keys: ReadonlyArray<SigningKey.SigningKey>, changes: ReadonlyArray<SigningKey.Change>) =>
  keys.map((key) => changes.find((change) => change.after.kid === key.kid)?.after ?? key)

const kids = (keys: ReadonlyArray<SigningKey.SigningKey>) => keys.map((key) => key.kid)

describe("SigningKey lifecycle", () => {
  const a = SigningKey.first(newKey("a"), at(0))
  const b = right(SigningKey.add(newKey("b"), SigningKey.defaultValidMethods, at(1 * hour)))

  it("a first key is current at once; an added one waits on standby, published but not signing", () => {
    expect(a.status).toBe("current")
    expect(b.status).toBe("standby")
    expect(Option.map(SigningKey.current([a, b]), (key) => key.kid)).toEqual(Option.some("a"))
    expect(kids(SigningKey.published([a, b], at(1 * hour), lifetimes))).toEqual(["a", "b"])
  })

  it("refuses to add a key whose algorithm JWT_VALID_METHODS does not allow", () => {
    const refused = SigningKey.add(
      { kid: kid("c"), algorithm: "ES256", privateJwk: material },
      ["RS256", "HS256"],
      at(0)
    )
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isLeft(refused)) expect(refused.left.message).toContain("ES256 is not in JWT_VALID_METHODS")
  })

  it("rotation makes the standby key current and the current key previous", () => {
    const rotatedAt = at(2 * hour)
    const changes = right(SigningKey.rotate([a, b], rotatedAt))
    expect(changes.map((change) => [change.before.status, change.after.status])).toEqual([
      ["current", "previous"],
      ["standby", "current"]
    ])
    const after = apply([a, b], changes)
    expect(Option.map(SigningKey.current(after), (key) => key.kid)).toEqual(Option.some("b"))
    const previous = after.find((key) => key.kid === "a")
    expect(previous?.stoppedSigningAt).toEqual(Option.some(rotatedAt))
    expect(after.find((key) => key.kid === "b")?.activatedAt).toEqual(Option.some(rotatedAt))
  })

  it("a previous key stays published until every token it signed has expired, then drops", () => {
    const rotatedAt = 2 * hour
    const after = apply([a, b], right(SigningKey.rotate([a, b], at(rotatedAt))))
    const previous = after.find((key) => key.kid === "a")
    if (previous === undefined) throw new Error("key a is gone")
    // JWT_EXP after the rotation, plus the time another instance may still sign with it.
    const until = rotatedAt + 1 * hour + 30 * second
    expect(SigningKey.verifiesUntil(previous, lifetimes)).toEqual(Option.some(at(until)))
    expect(kids(SigningKey.published(after, at(rotatedAt), lifetimes))).toEqual(["a", "b"])
    expect(kids(SigningKey.published(after, at(until - 1), lifetimes))).toEqual(["a", "b"])
    expect(SigningKey.phase(previous, at(until - 1), lifetimes)).toBe("previous")
    expect(kids(SigningKey.published(after, at(until), lifetimes))).toEqual(["b"])
    expect(SigningKey.phase(previous, at(until), lifetimes)).toBe("expired")
  })

  it("a longer JWT_EXP keeps the previous key longer", () => {
    const after = apply([a, b], right(SigningKey.rotate([a, b], at(0))))
    const long = SigningKey.lifetimes(Duration.hours(24), Duration.zero)
    expect(kids(SigningKey.published(after, at(23 * hour), long))).toEqual(["a", "b"])
    expect(kids(SigningKey.published(after, at(24 * hour), long))).toEqual(["b"])
  })

  it("rotation without a standby key is refused, and says how to get one", () => {
    const refused = SigningKey.rotate([a], at(0))
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isLeft(refused)) {
      expect(refused.left._tag).toBe("NoStandbyKey")
      expect(refused.left.message).toContain("add one first")
    }
  })

  it("rotation picks the standby key published longest", () => {
    const c = right(SigningKey.add(newKey("c"), SigningKey.defaultValidMethods, at(3 * hour)))
    const changes = right(SigningKey.rotate([a, c, b], at(4 * hour)))
    expect(changes.map((change) => change.after.kid)).toEqual(["a", "b"])
  })

  it("retiring the current key is refused, saying why", () => {
    const refused = SigningKey.retire([a, b], kid("a"), at(0))
    expect(Either.isLeft(refused)).toBe(true)
    if (Either.isLeft(refused)) {
      expect(refused.left._tag).toBe("CurrentKeyNotRetirable")
      expect(refused.left.message).toContain("signs every new token")
      expect(refused.left.message).toContain("rotate to another key")
    }
  })

  it("retiring a previous key unpublishes it at once and wipes its material", () => {
    const rotated = apply([a, b], right(SigningKey.rotate([a, b], at(2 * hour))))
    const change = right(SigningKey.retire(rotated, kid("a"), at(2 * hour + minute)))
    expect(change.after.status).toBe("retired")
    expect(change.after.privateJwk).toEqual(Option.none())
    expect(change.after.retiredAt).toEqual(Option.some(at(2 * hour + minute)))
    const after = apply(rotated, [change])
    expect(kids(SigningKey.published(after, at(2 * hour + minute), lifetimes))).toEqual(["b"])
  })

  it("retiring a standby key, an unknown key or a retired one", () => {
    expect(Either.isRight(SigningKey.retire([a, b], kid("b"), at(0)))).toBe(true)
    const unknown = SigningKey.retire([a, b], kid("zz"), at(0))
    expect(Either.isLeft(unknown) && unknown.left._tag).toBe("UnknownSigningKey")
    const retired = apply([a, b], [right(SigningKey.retire([a, b], kid("b"), at(0)))])
    const again = SigningKey.retire(retired, kid("b"), at(1))
    expect(Either.isLeft(again) && again.left._tag).toBe("KeyAlreadyRetired")
  })

  it("a printed key does not show its private material", () => {
    expect(String(a)).not.toContain("secret-d")
    expect(JSON.stringify(a)).not.toContain("secret-d")
    expect(Option.map(a.privateJwk, Redacted.value)).toEqual(Option.some(material))
  })
})

describe("SigningKey.publicJwk", () => {
  it("keeps only public members and adds kid, alg, use and key_ops", () => {
    expect(SigningKey.publicJwk({ ...material, oth: [], ext: true }, "a", "RS256")).toEqual(
      Option.some({ kty: "RSA", n: "n", e: "AQAB", kid: "a", alg: "RS256", use: "sig", key_ops: ["verify"] })
    )
    expect(SigningKey.publicJwk({ kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" }, "e", "ES256")).toEqual(
      Option.some({
        kty: "EC",
        crv: "P-256",
        x: "x",
        y: "y",
        kid: "e",
        alg: "ES256",
        use: "sig",
        key_ops: ["verify"]
      })
    )
    expect(SigningKey.publicJwk({ kty: "OKP", crv: "Ed25519", x: "x", d: "d" }, "o", "EdDSA")).toEqual(
      Option.some({
        kty: "OKP",
        crv: "Ed25519",
        x: "x",
        kid: "o",
        alg: "EdDSA",
        use: "sig",
        key_ops: ["verify"]
      })
    )
  })

  it("has nothing to publish for a symmetric key", () => {
    expect(SigningKey.publicJwk({ kty: "oct", k: "secret" }, "h", "HS256")).toEqual(Option.none())
  })
})
