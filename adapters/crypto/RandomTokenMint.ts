import { randomBytes, randomInt, randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { TokenMint } from "../../application/ports/TokenMint.js"
import * as TokenKind from "../../domain/TokenKind.js"

/** 32 bytes = 256 bits from the operating system's CSPRNG, base64url without padding (43 chars). */
const secretBytes = 32

export const layer = Layer.succeed(TokenMint, {
  token: (kind) =>
    Effect.sync(() =>
      Redacted.make(`${TokenKind.prefix[kind]}${randomBytes(secretBytes).toString("base64url")}`)
    ),
  uuid: Effect.sync(() => randomUUID()),
  code: (length) =>
    Effect.sync(() => Redacted.make(Array.from({ length }, () => String(randomInt(10))).join("")))
})
