import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { authenticate, type Credentials } from "../../../application/oauth/ClientAuthentication.js"
import { ClientKeys, ClientKeysUnavailable } from "../../../application/oauth/ports/ClientKeys.js"
import {
  ClientMetadataFetcher,
  ClientMetadataUnavailable
} from "../../../application/oauth/ports/ClientMetadataFetcher.js"
import { ClientMetadataDocument } from "../../../domain/oauth/ClientMetadataDocument.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"
import * as StaticClientKeys from "../../support/oauth/StaticClientKeys.js"

const clientId = "https://connector.example.com/oauth/client.json"
const jwksUri = "https://connector.example.com/oauth/jwks.json"
const start = Date.parse("2026-11-28T12:00:00Z")

const signing = await generateKeyPair("ES256", { extractable: true })
const stranger = await generateKeyPair("ES256", { extractable: true })
const publicJwk = { ...(await exportJWK(signing.publicKey)), kid: "k1", alg: "ES256", use: "sig" }

const document = new ClientMetadataDocument({
  client_id: clientId,
  client_name: "Signing connector",
  redirect_uris: ["https://connector.example.com/callback"],
  token_endpoint_auth_method: "private_key_jwt",
  jwks_uri: jwksUri
})

/** The document served, or its publisher down while `state.down` is set. */
const state = { down: false }
const documents = Layer.succeed(ClientMetadataFetcher, {
  fetch: (url) =>
    state.down
      ? Effect.fail(new ClientMetadataUnavailable({ url: url.href, reason: "503", answer: "down" }))
      : url.href === clientId
        ? Effect.succeed(document)
        : Effect.fail(new ClientMetadataUnavailable({ url: url.href, reason: "404", answer: "gone" }))
})

const layer = Harness.layerWith(documents, StaticClientKeys.layer({ [jwksUri]: { keys: [publicJwk] } }))

interface Signed {
  readonly claims?: Record<string, unknown>
  readonly key?: Parameters<SignJWT["sign"]>[0]
  readonly kid?: string
  readonly at?: number
}

/** An assertion as a client library makes one: ES256, a minute's validity, a fresh jti. */
const assertion = (signed: Signed = {}) =>
  Effect.promise(() => {
    const at = Math.floor((signed.at ?? start) / 1000)
    return new SignJWT({
      iss: clientId,
      sub: clientId,
      aud: Harness.issuer,
      iat: at,
      exp: at + 60,
      jti: crypto.randomUUID(),
      ...signed.claims
    })
      .setProtectedHeader({ alg: "ES256", kid: signed.kid ?? "k1" })
      .sign(signed.key ?? signing.privateKey)
  })

const credentials = (
  jwt: Option.Option<string>,
  secret: Option.Option<string> = Option.none()
): Credentials => ({
  clientId: Option.some(clientId),
  secret: Option.map(secret, Redacted.make),
  assertion: Option.map(jwt, Redacted.make)
})

const refusalOf = <R>(
  effect: Effect.Effect<unknown, { readonly code: string; readonly description: string }, R>
) => Effect.map(Effect.flip(effect), (error) => `${error.code}: ${error.description}`)

describe("authenticating a metadata-document client by private_key_jwt (RFC 7523)", () => {
  it.effect("accepts the client's signed assertion once; the same assertion again is refused", () =>
    Effect.gen(function* () {
      state.down = false
      yield* TestClock.setTime(start)
      const jwt = yield* assertion()
      const client = yield* authenticate(credentials(Option.some(jwt)))
      expect(client.id).toBe(clientId)
      expect(client.jwksUri).toEqual(Option.some(jwksUri))
      expect(yield* refusalOf(authenticate(credentials(Option.some(jwt))))).toBe(
        "invalid_client: client_assertion refused: it was used before"
      )
      // A fresh assertion passes.
      expect((yield* authenticate(credentials(Option.some(yield* assertion())))).id).toBe(clientId)
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses a signing client that presents no assertion, or a secret", () =>
    Effect.gen(function* () {
      state.down = false
      yield* TestClock.setTime(start)
      expect(yield* refusalOf(authenticate(credentials(Option.none())))).toContain(
        "client_assertion is required"
      )
      expect(yield* refusalOf(authenticate(credentials(Option.none(), Option.some("s3cret"))))).toContain(
        "a public client has no secret"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses assertions the client's keys did not sign, or that say the wrong things", () =>
    Effect.gen(function* () {
      state.down = false
      yield* TestClock.setTime(start)
      const refused = (signed: Signed) =>
        Effect.flatMap(assertion(signed), (jwt) => refusalOf(authenticate(credentials(Option.some(jwt)))))
      expect(yield* refused({ key: stranger.privateKey })).toContain("signature does not verify")
      expect(yield* refused({ key: stranger.privateKey, kid: "k2" })).toContain(
        "no key of the client's key set"
      )
      expect(yield* refused({ claims: { aud: "https://elsewhere.example" } })).toContain("aud must be")
      expect(yield* refused({ at: start - 5 * 60_000 })).toContain("expired")
      expect(yield* refusalOf(authenticate(credentials(Option.some("not.a.jwt"))))).toContain(
        "not a compact JWS"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("an assertion made at one instant is refused once the clock passes its expiry", () =>
    Effect.gen(function* () {
      state.down = false
      yield* TestClock.setTime(start)
      const jwt = yield* assertion()
      yield* TestClock.adjust("121 seconds")
      expect(yield* refusalOf(authenticate(credentials(Option.some(jwt))))).toContain("expired")
    }).pipe(Effect.provide(layer))
  )

  it.effect("while the document's publisher is down, the stored row still asks for a signature", () =>
    Effect.gen(function* () {
      state.down = false
      yield* TestClock.setTime(start)
      yield* authenticate(credentials(Option.some(yield* assertion())))
      state.down = true
      expect(yield* refusalOf(authenticate(credentials(Option.none())))).toContain(
        "client_assertion is required"
      )
      expect((yield* authenticate(credentials(Option.some(yield* assertion())))).id).toBe(clientId)
      state.down = false
    }).pipe(Effect.provide(layer))
  )

  it.effect("a key set that cannot be fetched right now is temporarily_unavailable, not invalid_client", () =>
    Effect.gen(function* () {
      state.down = false
      yield* TestClock.setTime(start)
      const unreachable = Layer.succeed(ClientKeys, {
        verify: () =>
          Effect.fail(new ClientKeysUnavailable({ reason: "no answer within 5s", answer: "down" }))
      })
      const answer = yield* Effect.either(
        Effect.flatMap(assertion(), (jwt) => authenticate(credentials(Option.some(jwt)))).pipe(
          Effect.provide(Harness.layerWith(documents, unreachable))
        )
      )
      expect(Either.isLeft(answer) && answer.left.code).toBe("temporarily_unavailable")
    })
  )

  it.effect("a public client without keys may not present an assertion", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const client = yield* Harness.publicClient
      const jwt = yield* assertion()
      expect(
        yield* refusalOf(
          authenticate({
            clientId: Option.some(client.id),
            secret: Option.none(),
            assertion: Option.some(Redacted.make(jwt))
          })
        )
      ).toContain("publishes no keys")
    }).pipe(Effect.provide(layer))
  )
})
