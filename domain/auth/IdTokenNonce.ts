import * as Effect from "effect/Effect"
import { constantTimeEqual } from "../ConstantTime.js"

/** Hex of SHA-256 of the UTF-8 text. */
const sha256Hex = (text: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) =>
      Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("")
    )
  )

/**
 * What the nonces of a native sign-in come to, in Supabase Auth's words where they fail: the
 * OAuth `error` it answers with (a malformed request, or a nonce that does not match) and its
 * description.
 */
export type Verdict =
  | { readonly _tag: "Ok" }
  | {
      readonly _tag: "Refused"
      readonly error: "invalid request" | "invalid nonce"
      readonly message: string
    }

/**
 * Supabase Auth's nonce rule for `grant_type=id_token`: the application keeps the raw nonce and
 * gives the provider its SHA-256 (hex), which the ID token carries; both present or neither,
 * and the token's must be the digest of the one passed.
 */
export const check = (passed: string, inToken: string | undefined): Effect.Effect<Verdict> =>
  Effect.gen(function* () {
    if (passed === "" && inToken === undefined) return { _tag: "Ok" } as const
    if (passed === "" || inToken === undefined) {
      return {
        _tag: "Refused",
        error: "invalid request",
        message: "Passed nonce and nonce in id_token should either both exist or not."
      } as const
    }
    return constantTimeEqual(yield* sha256Hex(passed), inToken)
      ? ({ _tag: "Ok" } as const)
      : ({ _tag: "Refused", error: "invalid nonce", message: "Nonces mismatch" } as const)
  })
