import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import * as ClientKeysHttp from "../../../../adapters/clientmetadata/oauth/ClientKeysHttp.js"
import * as DocumentServer from "../../../support/oauth/DocumentServer.js"
import * as Allowed from "../../../support/outbound/Allowed.js"

const first = await generateKeyPair("ES256", { extractable: true })
const second = await generateKeyPair("RS256", { extractable: true })
const firstJwk = { ...(await exportJWK(first.publicKey)), kid: "k1" }
const secondJwk = { ...(await exportJWK(second.publicKey)), kid: "k2" }

const sign = (key: Parameters<SignJWT["sign"]>[0], header: { alg: string; kid: string }) =>
  Effect.promise(() => new SignJWT({ sub: "client", jti: "j" }).setProtectedHeader(header).sign(key))

const verifierFor = (server: DocumentServer.DocumentServer) =>
  ClientKeysHttp.make({ allowedPrivateAddresses: Allowed.localhost, ca: [server.cert] })

/** What `verify` answered: the payload's sub, or the failure's reason. */
const outcome = (verifier: Effect.Effect.Success<ReturnType<typeof verifierFor>>, jwt: string, url: string) =>
  Effect.map(Effect.either(verifier.verify(Redacted.make(jwt), url)), (result) =>
    Either.match(result, {
      onLeft: (failure) => `${failure._tag}: ${failure.reason}`,
      onRight: (payload) => `verified ${JSON.stringify(payload)}`
    })
  )

describe("ClientKeysHttp", () => {
  it.scoped("verifies a signature under a published key, fetching the set once while it is fresh", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/jwks.json": DocumentServer.json(() => ({ keys: [firstJwk] }))
      })
      const verifier = yield* verifierFor(server)
      const url = `${server.origin}/jwks.json`
      const jwt = yield* sign(first.privateKey, { alg: "ES256", kid: "k1" })
      expect(yield* outcome(verifier, jwt, url)).toBe('verified {"sub":"client","jti":"j"}')
      expect(yield* outcome(verifier, jwt, url)).toBe('verified {"sub":"client","jti":"j"}')
      expect(server.hits("/jwks.json")).toBe(1)
    })
  )

  it.scoped("fetches the set again for a key it lacks (a rotation), at most every 30 seconds", () =>
    Effect.gen(function* () {
      const published = { keys: [firstJwk] }
      const server = yield* DocumentServer.start({
        "/jwks.json": DocumentServer.json(() => published, { "cache-control": "max-age=3600" })
      })
      const verifier = yield* verifierFor(server)
      const url = `${server.origin}/jwks.json`
      yield* outcome(verifier, yield* sign(first.privateKey, { alg: "ES256", kid: "k1" }), url)
      published.keys = [firstJwk, secondJwk]
      const rotated = yield* sign(second.privateKey, { alg: "RS256", kid: "k2" })
      yield* TestClock.adjust(Duration.subtract(ClientKeysHttp.refetchCooldown, Duration.millis(1)))
      expect(yield* outcome(verifier, rotated, url)).toContain("no key of the client's key set matches it")
      expect(server.hits("/jwks.json")).toBe(1)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* outcome(verifier, rotated, url)).toContain("verified")
      expect(server.hits("/jwks.json")).toBe(2)
    })
  )

  it.scoped("passes over entries of a set that are no key it can use and verifies with the others", () =>
    Effect.gen(function* () {
      const server = yield* DocumentServer.start({
        "/jwks.json": DocumentServer.json(() => ({
          keys: [
            { kid: "no-kty", x: "AAAA" },
            { ...secondJwk, kid: 7 },
            "not an object",
            { kty: "EC", crv: "secp256k1", kid: "k256", x: "AAAA", y: "AAAA" },
            { kty: "future", kid: "later" },
            firstJwk
          ]
        }))
      })
      const verifier = yield* verifierFor(server)
      const url = `${server.origin}/jwks.json`
      expect(yield* outcome(verifier, yield* sign(first.privateKey, { alg: "ES256", kid: "k1" }), url)).toBe(
        'verified {"sub":"client","jti":"j"}'
      )
      // The entry with a numeric kid was passed over, not read as key "7" or as any key.
      expect(
        yield* outcome(verifier, yield* sign(second.privateKey, { alg: "RS256", kid: "7" }), url)
      ).toContain("no key of the client's key set matches it")
    })
  )

  it.scoped(
    "refuses symmetric algorithms, private or symmetric keys in the set, and what is no key set",
    () =>
      Effect.gen(function* () {
        const privateJwk = { ...(yield* Effect.promise(() => exportJWK(first.privateKey))), kid: "k1" }
        const server = yield* DocumentServer.start({
          "/jwks.json": DocumentServer.json(() => ({ keys: [firstJwk] })),
          "/private.json": DocumentServer.json(() => ({ keys: [privateJwk] })),
          "/oct.json": DocumentServer.json(() => ({ keys: [{ kty: "oct", k: "c2VjcmV0", kid: "k1" }] })),
          "/array.json": DocumentServer.json(() => [firstJwk])
        })
        const verifier = yield* verifierFor(server)
        const hmac = yield* sign(new TextEncoder().encode("s".repeat(32)), { alg: "HS256", kid: "k1" })
        expect(yield* outcome(verifier, hmac, `${server.origin}/jwks.json`)).toContain(
          "its alg is not accepted"
        )
        const jwt = yield* sign(first.privateKey, { alg: "ES256", kid: "k1" })
        expect(yield* outcome(verifier, jwt, `${server.origin}/private.json`)).toBe(
          "ClientKeysUnavailable: the key set publishes a private or symmetric key"
        )
        expect(yield* outcome(verifier, jwt, `${server.origin}/oct.json`)).toContain(
          "private or symmetric key"
        )
        expect(yield* outcome(verifier, jwt, `${server.origin}/array.json`)).toContain("not a JWK Set")
        expect(yield* outcome(verifier, "a.b", `${server.origin}/jwks.json`)).toContain("not a compact JWS")
        expect(yield* outcome(verifier, jwt, "http://127.0.0.1/jwks.json")).toBe(
          "ClientKeysUnavailable: jwks_uri is not an https URL"
        )
        expect(yield* outcome(verifier, jwt, "not a URL")).toContain("not an https URL")
      })
  )

  it.scoped(
    "while the publisher is down, the set fetched last serves; with none, the failure says down",
    () =>
      Effect.gen(function* () {
        const publisher = { down: false }
        const keys = DocumentServer.json(() => ({ keys: [firstJwk] }))
        const server = yield* DocumentServer.start({
          "/jwks.json": (request, response, origin) =>
            publisher.down ? response.writeHead(503).end() : keys(request, response, origin)
        })
        const jwt = yield* sign(first.privateKey, { alg: "ES256", kid: "k1" })
        const url = `${server.origin}/jwks.json`
        const verifier = yield* verifierFor(server)
        expect(yield* outcome(verifier, jwt, url)).toContain("verified")
        publisher.down = true
        // Past the five minutes a set without caching headers keeps.
        yield* TestClock.adjust(Duration.minutes(6))
        expect(yield* outcome(verifier, jwt, url)).toContain("verified")
        expect(server.hits("/jwks.json")).toBe(2)
        const fresh = yield* verifierFor(server)
        const failed = yield* Effect.flip(fresh.verify(Redacted.make(jwt), url))
        expect(failed).toMatchObject({ _tag: "ClientKeysUnavailable", answer: "down" })
      })
  )
})
