import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as FlowState from "../../../domain/auth/FlowState.js"
import { UserId } from "../../../domain/Ids.js"
import * as Time from "../../../domain/Time.js"

const issued = new Date("2026-01-01T00:00:00Z")

const verifier = "dBjftJeZ4CVP-mJ92K1qUdOg0DdLbfA8sYiEm9d-0wqWs"
// The S256 challenge computed by node:crypto, independently of the code under test.
const s256 = createHash("sha256").update(verifier).digest("base64url")

const flow = (method: FlowState.ChallengeMethod, challenge: string, codeIssued: Option.Option<Date>) =>
  new FlowState.FlowState({
    id: FlowState.FlowStateId.make("11111111-1111-4111-8111-111111111111"),
    userId: UserId.make("22222222-2222-4222-8222-222222222222"),
    codeChallenge: challenge,
    codeChallengeMethod: method,
    authenticationMethod: "otp",
    authCodeHash: Option.none(),
    authCodeIssuedAt: codeIssued,
    providerTokens: Option.none(),
    createdAt: issued
  })

describe("FlowState", () => {
  it.effect("answers S256 with the verifier whose hash is the challenge, and plain with the same text", () =>
    Effect.gen(function* () {
      expect(yield* FlowState.answers(flow("s256", s256, Option.none()), verifier)).toBe(true)
      expect(yield* FlowState.answers(flow("s256", s256, Option.none()), `${verifier}x`)).toBe(false)
      expect(yield* FlowState.answers(flow("plain", verifier, Option.none()), verifier)).toBe(true)
      expect(yield* FlowState.answers(flow("plain", verifier, Option.none()), s256)).toBe(false)
    })
  )

  it("a code lives five minutes from when the link was followed; none issued is no code", () => {
    const coded = flow("s256", s256, Option.some(issued))
    const fiveMinutes = FlowState.minimumLifetime
    expect(FlowState.isExpired(coded, Time.plus(issued, "5 minutes"), fiveMinutes)).toBe(false)
    expect(FlowState.isExpired(coded, Time.plus(issued, "301 seconds"), fiveMinutes)).toBe(true)
    expect(FlowState.isExpired(flow("s256", s256, Option.none()), issued, fiveMinutes)).toBe(true)
  })

  it("lives as long as EXTERNAL_FLOW_STATE_EXPIRY_DURATION says, never under five minutes", () => {
    const coded = flow("s256", s256, Option.some(issued))
    expect(FlowState.isExpired(coded, Time.plus(issued, "59 minutes"), Duration.hours(1))).toBe(false)
    expect(FlowState.isExpired(coded, Time.plus(issued, "3601 seconds"), Duration.hours(1))).toBe(true)
    // Shorter is raised to 300 s, as Supabase Auth raises it.
    expect(FlowState.isExpired(coded, Time.plus(issued, "4 minutes"), Duration.seconds(30))).toBe(false)
    expect(FlowState.isExpired(coded, Time.plus(issued, "301 seconds"), Duration.seconds(30))).toBe(true)
  })

  it("reads the method as Supabase Auth does, in any case", () => {
    expect(FlowState.parseMethod("S256")).toEqual(Option.some("s256"))
    expect(FlowState.parseMethod("Plain")).toEqual(Option.some("plain"))
    expect(FlowState.parseMethod("sha1")).toEqual(Option.none())
  })
})
