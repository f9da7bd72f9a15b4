import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { BrowserOutcome } from "../../../application/oauth/BrowserOutcome.js"
import { callback } from "../../../application/oauth/Callback.js"
import { decide } from "../../../application/oauth/Consent.js"
import * as ManageClients from "../../../application/oauth/ManageClients.js"
import { register } from "../../../application/oauth/Register.js"
import * as Pkce from "../../../domain/Pkce.js"
import * as FakeUpstream from "../../support/oauth/FakeUpstream.js"
import * as Harness from "../../support/oauth/OAuthHarness.js"

const loopback = "http://127.0.0.1:53682/callback"

/** Authorize and come back from the upstream: the outcome of our callback. */
const throughUpstream = (clientId: string, redirectUri = loopback, session?: string, scope?: string) =>
  Effect.gen(function* () {
    const challenge = yield* Pkce.challengeOf(Harness.verifier)
    const started = yield* Harness.authorizeWith(
      {
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s",
        ...(scope === undefined ? {} : { scope })
      },
      { session }
    )
    if (started._tag !== "RedirectToUpstream") return started
    return yield* callback(FakeUpstream.callbackFor(started.location, "grace@example.com"))
  })

const tokenOf = (outcome: BrowserOutcome) =>
  outcome._tag === "ShowConsent" ? Redacted.value(outcome.prompt.token) : "no consent page"

/** The user presses Allow on the consent page `outcome` shows. */
const approve = (outcome: BrowserOutcome) =>
  decide({
    formToken: Option.some(tokenOf(outcome)),
    cookieToken: Option.some(tokenOf(outcome)),
    approve: true
  })

describe("consent for dynamically registered clients", () => {
  it.effect(
    "is asked on the first login, with a loopback warning, and then asked at every loopback login",
    () =>
      Effect.gen(function* () {
        const client = yield* Harness.dynamicClient
        const first = yield* throughUpstream(client.id)
        expect(first._tag).toBe("ShowConsent")
        if (first._tag === "ShowConsent") {
          expect(first.prompt.clientName).toBe("MCP test")
          expect(first.prompt.destination).toBe("loopback")
          expect(first.prompt.redirectUri).toBe(loopback)
        }
        const approved = yield* approve(first)
        expect(
          approved._tag === "RedirectToClient" && new URL(approved.location).searchParams.has("code")
        ).toBe(true)
        // RFC 8252 §8.6: a loopback listener is whoever binds the port; the approval does not
        // let a later login through unseen.
        const second = yield* throughUpstream(client.id)
        expect(second._tag).toBe("ShowConsent")
      }).pipe(Effect.provide(Harness.layer))
  )

  it.effect(
    "is remembered for the scopes approved with an https redirect URI, which proves who receives the code",
    () =>
      Effect.gen(function* () {
        const web = "https://connector.example.com/oauth/callback"
        const registered = yield* register(
          Either.right({
            redirectUris: ["http://127.0.0.1/callback", web, "cursor://anysphere.cursor-mcp/oauth/callback"],
            grantTypes: Option.none(),
            clientName: Option.some("Hosted connector")
          }),
          "192.0.2.50",
          Harness.registerRateLimit
        )
        const id = registered.client.id
        const first = yield* throughUpstream(id, web, undefined, "mcp:tools")
        expect(first._tag === "ShowConsent" && first.prompt.destination).toBe("web")
        yield* approve(first)
        expect((yield* throughUpstream(id, web, undefined, "mcp:tools"))._tag).toBe("RedirectToClient")
        expect((yield* throughUpstream(id, web))._tag).toBe("RedirectToClient")
        // More than was approved is asked again, and then remembered too.
        const wider = yield* throughUpstream(id, web, undefined, "mcp:tools mcp:admin")
        expect(wider._tag === "ShowConsent" && Option.getOrNull(wider.prompt.scope)).toBe(
          "mcp:tools mcp:admin"
        )
        yield* approve(wider)
        expect((yield* throughUpstream(id, web, undefined, "mcp:admin"))._tag).toBe("RedirectToClient")
        // The same client's app-scheme and loopback redirects still ask.
        const app = yield* throughUpstream(id, "cursor://anysphere.cursor-mcp/oauth/callback")
        expect(app._tag === "ShowConsent" && app.prompt.destination).toBe("app")
        expect((yield* throughUpstream(id))._tag).toBe("ShowConsent")
      }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("a denial goes back to the client as access_denied, and nothing is remembered", () =>
    Effect.gen(function* () {
      const client = yield* Harness.dynamicClient
      const token = tokenOf(yield* throughUpstream(client.id))
      const denied = yield* decide({
        formToken: Option.some(token),
        cookieToken: Option.some(token),
        approve: false
      })
      expect(denied._tag).toBe("RedirectToClient")
      if (denied._tag === "RedirectToClient") {
        const url = new URL(denied.location)
        expect(url.searchParams.get("error")).toBe("access_denied")
        expect(url.searchParams.get("state")).toBe("s")
        expect(url.searchParams.has("code")).toBe(false)
      }
      expect((yield* throughUpstream(client.id))._tag).toBe("ShowConsent")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("refuses a decision without the matching cookie (CSRF), and answers a token only once", () =>
    Effect.gen(function* () {
      const client = yield* Harness.dynamicClient
      const token = tokenOf(yield* throughUpstream(client.id))
      const forged = yield* decide({
        formToken: Option.some(token),
        cookieToken: Option.none(),
        approve: true
      })
      expect(forged._tag).toBe("ShowError")
      const mismatched = yield* decide({
        formToken: Option.some(token),
        cookieToken: Option.some("other"),
        approve: true
      })
      expect(mismatched._tag).toBe("ShowError")
      const real = yield* decide({
        formToken: Option.some(token),
        cookieToken: Option.some(token),
        approve: true
      })
      expect(real._tag).toBe("RedirectToClient")
      const again = yield* decide({
        formToken: Option.some(token),
        cookieToken: Option.some(token),
        approve: true
      })
      expect(again._tag).toBe("ShowError")
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("operator-seeded clients skip it", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      expect((yield* throughUpstream(client.id))._tag).toBe("RedirectToClient")
    }).pipe(Effect.provide(Harness.layer))
  )
})

describe("browser sessions of confidential web clients", () => {
  it.effect("the callback starts a session, and a later authorize with it skips the upstream", () =>
    Effect.gen(function* () {
      const { client } = yield* ManageClients.create({
        name: "web",
        redirectUris: ["https://app.example.com/cb"],
        confidential: true,
        clientId: Option.none(),
        secret: Option.none()
      })
      const first = yield* throughUpstream(client.id, "https://app.example.com/cb")
      expect(first._tag).toBe("RedirectToClient")
      const session = first._tag === "RedirectToClient" ? first.session : undefined
      expect(session).toBeDefined()
      const second = yield* throughUpstream(
        client.id,
        "https://app.example.com/cb",
        Redacted.value(session ?? Redacted.make(""))
      )
      expect(second._tag).toBe("RedirectToClient")
      if (second._tag === "RedirectToClient") {
        expect(new URL(second.location).searchParams.has("code")).toBe(true)
        expect(second.session).toBeUndefined()
      }
      const forged = yield* throughUpstream(client.id, "https://app.example.com/cb", "lkw_forged")
      expect(forged._tag).toBe("RedirectToClient")
      if (forged._tag === "RedirectToClient") expect(forged.session).toBeDefined()
    }).pipe(Effect.provide(Harness.layer))
  )

  it.effect("public clients get no session", () =>
    Effect.gen(function* () {
      const client = yield* Harness.publicClient
      const outcome = yield* throughUpstream(client.id)
      expect(outcome._tag === "RedirectToClient" && outcome.session).toBeUndefined()
    }).pipe(Effect.provide(Harness.layer))
  )
})
