import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Destination from "../../adapters/outbound/Destination.js"
import { DestinationUnreachable } from "../../adapters/outbound/OutboundFailure.js"
import * as PrivateAddresses from "../../adapters/outbound/PrivateAddresses.js"
import * as OutboundReach from "../../bootstrap/OutboundReach.js"
import * as Allowed from "../support/outbound/Allowed.js"

const variable = "OUTBOUND_ALLOWED_PRIVATE_ADDRESSES"

/** Answers from `table`; a name it lacks does not resolve. */
const resolverOf =
  (table: Readonly<Record<string, ReadonlyArray<string>>>): Destination.Resolver =>
  (hostname) => {
    const answer = table[hostname]
    return answer === undefined
      ? Effect.fail(new DestinationUnreachable({ host: hostname, message: `cannot resolve ${hostname}` }))
      : Effect.succeed(answer)
  }

const reach = (allowed: PrivateAddresses.AllowList): OutboundReach.Reach => ({
  service: "oauth",
  variable,
  allowed
})

const warningFor = (allowed: PrivateAddresses.AllowList, url: string) =>
  OutboundReach.refusalOf(
    reach(allowed),
    { variable: "OAUTH2_ISSUER_URL", url },
    resolverOf({
      localhost: ["127.0.0.1", "::1"],
      "keycloak.internal": ["10.1.2.3"],
      "id.example.com": ["93.184.215.14"],
      "metadata.internal": ["169.254.169.254"]
    })
  )

describe("OutboundReach.summary: the start-up line", () => {
  it("lists the private addresses outbound calls may reach, and where the list came from", () => {
    expect(OutboundReach.summary(reach(PrivateAddresses.none))).toBe(
      "oauth: outbound calls reach public addresses only (OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists no private address)"
    )
    expect(OutboundReach.summary(reach(Allowed.allowing("10.0.0.0/8", "::1")))).toBe(
      "oauth: outbound calls may reach these private addresses besides public ones: 10.0.0.0/8, ::1/128 (OUTBOUND_ALLOWED_PRIVATE_ADDRESSES)"
    )
    expect(
      OutboundReach.summary({
        ...reach(Allowed.allowing("127.0.0.0/8", "::1")),
        source: "the default of latchkey dev"
      })
    ).toBe(
      "oauth: outbound calls may reach these private addresses besides public ones: 127.0.0.0/8, ::1/128 (OUTBOUND_ALLOWED_PRIVATE_ADDRESSES unset: the default of latchkey dev)"
    )
  })
})

describe("OutboundReach.refusalOf: a configured URL the guard would refuse", () => {
  it.effect("names the variable that names the URL, the addresses, and the variable to set", () =>
    Effect.gen(function* () {
      expect(yield* warningFor(PrivateAddresses.none, "http://localhost:8080/realms/acme")).toEqual(
        Option.some(
          "oauth: OAUTH2_ISSUER_URL: localhost resolves to 127.0.0.1 (loopback), ::1 (loopback), which the outbound guard refuses: add them to OUTBOUND_ALLOWED_PRIVATE_ADDRESSES to let the service reach localhost"
        )
      )
      expect(yield* warningFor(PrivateAddresses.none, "ftp://localhost/")).toEqual(
        Option.some(
          "oauth: OAUTH2_ISSUER_URL: the outbound guard will refuse it: only https destinations are contacted"
        )
      )
      expect(yield* warningFor(Allowed.localhost, "http://localhost:8080/realms/acme")).toEqual(
        Option.some(
          "oauth: OAUTH2_ISSUER_URL: localhost resolves to ::1 (loopback), which the outbound guard refuses: add it to OUTBOUND_ALLOWED_PRIVATE_ADDRESSES to let the service reach localhost"
        )
      )
      expect(yield* warningFor(PrivateAddresses.none, "https://keycloak.internal/realms/acme")).toEqual(
        Option.some(
          "oauth: OAUTH2_ISSUER_URL: keycloak.internal resolves to 10.1.2.3 (private), which the outbound guard refuses: add it to OUTBOUND_ALLOWED_PRIVATE_ADDRESSES to let the service reach keycloak.internal"
        )
      )
    })
  )

  it.effect("says what no list can lift: a metadata address, plain http to a public one", () =>
    Effect.gen(function* () {
      const everything = Allowed.allowing("0.0.0.0/0", "::/0")
      expect(yield* warningFor(everything, "https://metadata.internal/")).toEqual(
        Option.some(
          "oauth: OAUTH2_ISSUER_URL: the outbound guard will refuse it: metadata.internal resolves to a cloudMetadata address, which is not contacted"
        )
      )
      expect(yield* warningFor(Allowed.localhost, "http://id.example.com/")).toEqual(
        Option.some(
          "oauth: OAUTH2_ISSUER_URL: the outbound guard will refuse it: id.example.com resolves to a unicast address; plain http goes only to private addresses OUTBOUND_ALLOWED_PRIVATE_ADDRESSES lists"
        )
      )
    })
  )

  it.effect("says nothing of a URL the guard lets through, or whose host does not resolve now", () =>
    Effect.gen(function* () {
      const list = Allowed.allowing("127.0.0.1", "::1", "10.0.0.0/8")
      for (const url of [
        "http://localhost:8080/realms/acme",
        "http://keycloak.internal:8080/realms/acme",
        "https://id.example.com/",
        "http://127.0.0.1:9000/",
        "https://not-yet.internal/"
      ]) {
        expect(yield* warningFor(list, url), url).toEqual(Option.none())
      }
    })
  )
})
