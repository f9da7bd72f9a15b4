import { existsSync } from "node:fs"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as NodeSecrets from "../../../../adapters/crypto/NodeSecrets.js"
import * as SimpleWebAuthnCeremonies from "../../../../adapters/webauthn/auth/SimpleWebAuthnCeremonies.js"
import { WebAuthnCeremonies } from "../../../../application/auth/ports/WebAuthnCeremonies.js"
import * as WebAuthnBrowser from "../../../support/auth/WebAuthnBrowser.js"
import * as Chromium from "../../../support/Chromium.js"

/**
 * The adapter against what a real browser's authenticator answers: Chromium's virtual
 * authenticator creates and asserts with the options the adapter made, and the adapter verifies
 * the JSON the browser serialised (`PublicKeyCredential.toJSON`, which auth-js uses too).
 */
const runtime = ManagedRuntime.make(SimpleWebAuthnCeremonies.layer.pipe(Layer.provide(NodeSecrets.layer)))
let scope: Scope.CloseableScope
let browser: WebAuthnBrowser.WebAuthnBrowser

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  browser = await Effect.runPromise(Scope.extend(WebAuthnBrowser.launch, scope))
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await runtime.dispose()
})

const create = `
  const options = PublicKeyCredential.parseCreationOptionsFromJSON(arg)
  const credential = await navigator.credentials.create({ publicKey: options })
  return credential.toJSON()`

const get = `
  const options = PublicKeyCredential.parseRequestOptionsFromJSON(arg)
  const credential = await navigator.credentials.get({ publicKey: options })
  return credential.toJSON()`

describe("SimpleWebAuthnCeremonies with Chromium's virtual authenticator", () => {
  it("registers a passkey and signs in with it, and refuses it from an origin not expected", async () => {
    expect(existsSync(Chromium.path)).toBe(true)
    const tab = await browser.open({ url: "http://127.0.0.1:9", key: "unused" })
    expect(await tab.run<string>("return typeof client.auth.passkey.startRegistration")).toBe("function")
    const expected = { relyingPartyId: WebAuthnBrowser.relyingPartyId, origins: [browser.origin] }
    const handle = new TextEncoder().encode("0d8f7c2a-5b4e-4f1a-9c3d-6e2b1a0f9d87")

    const registered = await runtime.runPromise(
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const started = yield* ceremonies.registrationOptions({
          relyingParty: { id: WebAuthnBrowser.relyingPartyId, name: "latchkey" },
          user: { handle, name: "ada@example.com", displayName: "Ada" },
          excludeCredentials: [],
          residentKey: "required",
          userVerification: "preferred",
          timeout: Duration.minutes(1)
        })
        const answer = yield* Effect.promise(() => tab.run<unknown>(create, started.options))
        return yield* ceremonies.verifyRegistration(answer, started.ceremony, expected)
      })
    )
    expect(registered.userVerified).toBe(true)
    const held = await tab.credentials()
    expect(held.map((credential) => credential.isResidentCredential)).toEqual([true])
    expect(Buffer.from(held[0]?.credentialId ?? "", "base64").toString("base64url")).toBe(
      registered.credential.credentialId
    )

    const signIn = (origins: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const ceremonies = yield* WebAuthnCeremonies
        const started = yield* ceremonies.authenticationOptions({
          relyingPartyId: WebAuthnBrowser.relyingPartyId,
          allowCredentials: [],
          userVerification: "preferred",
          timeout: Duration.minutes(1)
        })
        const answer = yield* Effect.promise(() => tab.run<unknown>(get, started.options))
        const assertion = yield* ceremonies.readAssertion(answer)
        return yield* Effect.either(
          ceremonies.verifyAuthentication(assertion, started.ceremony, registered.credential, {
            ...expected,
            origins
          })
        )
      })
    const signedIn = await runtime.runPromise(signIn([browser.origin]))
    expect(signedIn._tag).toBe("Right")
    if (signedIn._tag === "Right") {
      expect(Option.map(signedIn.right.userHandle, (bytes) => new TextDecoder().decode(bytes))).toEqual(
        Option.some("0d8f7c2a-5b4e-4f1a-9c3d-6e2b1a0f9d87")
      )
    }

    // The same tab at the other origin: the browser allows the relying party, the adapter does not.
    await tab.load(browser.otherOrigin)
    const elsewhere = await runtime.runPromise(signIn([browser.origin]))
    expect(elsewhere._tag === "Left" && elsewhere.left._tag).toBe("CeremonyFailed")
  }, 60_000)
})
