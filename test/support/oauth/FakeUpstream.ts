import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import {
  UpstreamIdentityProvider,
  UpstreamLoginFailed
} from "../../../application/ports/UpstreamIdentityProvider.js"

/**
 * An upstream for application tests: its authorize URL carries our state, and the "code" it
 * sends back is the email of the person who logged in. It checks the state like a real
 * client library does, so a mixed-up round trip fails.
 */
export const layer = Layer.succeed(UpstreamIdentityProvider, {
  name: "fake",
  authorizationUrl: (request) =>
    Effect.sync(() => {
      const url = new URL("https://upstream.test/authorize")
      url.searchParams.set("state", request.state)
      url.searchParams.set("nonce", request.nonce)
      url.searchParams.set("redirect_uri", request.redirectUri)
      return url
    }),
  exchange: (callbackUrl, request) =>
    Effect.gen(function* () {
      if (callbackUrl.searchParams.get("state") !== request.state) {
        return yield* new UpstreamLoginFailed({ message: "state mismatch" })
      }
      const email = callbackUrl.searchParams.get("code")
      if (email === null) return yield* new UpstreamLoginFailed({ message: "no code" })
      // The code `unreachable`: the upstream's token endpoint cannot be reached.
      if (email === "unreachable") {
        return yield* new UpstreamLoginFailed({
          message: "the upstream could not be reached",
          unavailable: true
        })
      }
      return {
        provider: "fake",
        subject: `sub-${email}`,
        email: Option.some(email),
        emailVerified: true,
        data: { name: email }
      }
    })
})

/** The callback URL the upstream would send the browser to after `email` logged in. */
export const callbackFor = (upstreamLocation: string, email: string): URL => {
  const upstream = new URL(upstreamLocation)
  const callback = new URL(upstream.searchParams.get("redirect_uri") ?? "http://invalid")
  callback.searchParams.set("state", upstream.searchParams.get("state") ?? "")
  callback.searchParams.set("code", email)
  return callback
}
