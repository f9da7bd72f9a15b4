import * as Effect from "effect/Effect"

/** RFC 4648 §5 base64url without padding, as PKCE (RFC 7636 Appendix A) requires. */
export const encode = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** BASE64URL(SHA-256(UTF-8(text))): a PKCE challenge (RFC 7636 §4.2), and our derived secrets. */
export const sha256Of = (text: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => encode(new Uint8Array(digest)))
  )
