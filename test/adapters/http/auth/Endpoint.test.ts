import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { bearerToken, body, field } from "../../../../adapters/http/auth/Endpoint.js"

const withAuthorization = (authorization?: string) => ({
  headers: authorization === undefined ? {} : { authorization }
})

describe("the auth service's bearer header", () => {
  it.effect("reads `Bearer` in any case, one space, a token without spaces", () =>
    Effect.gen(function* () {
      expect(yield* bearerToken(withAuthorization("Bearer abc.def"))).toBe("abc.def")
      expect(yield* bearerToken(withAuthorization("bearer abc.def"))).toBe("abc.def")
      // The scheme's name in any case, as RFC 9110 §11.1 and Supabase Auth read it.
      expect(yield* bearerToken(withAuthorization("BEARER abc.def"))).toBe("abc.def")
      expect(yield* bearerToken(withAuthorization("bEaReR abc.def"))).toBe("abc.def")
    })
  )

  it.effect("refuses anything else with NoBearerToken (401 no_authorization)", () =>
    Effect.gen(function* () {
      for (const header of [undefined, "", "Bearer  abc", "Bearer a b", "Basic abc", "Bearer "]) {
        const read = yield* Effect.either(bearerToken(withAuthorization(header)))
        expect(Either.isLeft(read) && read.left._tag).toBe("NoBearerToken")
      }
    })
  )
})

describe("the auth service's JSON bodies", () => {
  const Body = Schema.Struct({ email: field(Schema.String) })
  const decode = (text: string) => Effect.either(body(Body)({ body: text }))

  it.effect("reads an empty body or null as {}, a null field as unset, and ignores unknown fields", () =>
    Effect.gen(function* () {
      expect(yield* decode("")).toEqual(Either.right({}))
      expect(yield* decode("  null ")).toEqual(Either.right({}))
      expect(yield* decode('{"email":null,"other":1}')).toEqual(Either.right({}))
      expect(yield* decode('{"email":"a@example.com"}')).toEqual(Either.right({ email: "a@example.com" }))
    })
  )

  it.effect("refuses text that is not a JSON object, or a field of the wrong type, as BadJson", () =>
    Effect.gen(function* () {
      for (const text of ["{", "[]", '"text"', "1"]) {
        const read = yield* decode(text)
        expect(Either.isLeft(read) && read.left._tag).toBe("BadJson")
      }
      const array = yield* decode("[]")
      expect(Either.isLeft(array) && array.left.detail).toBe("the body must be a JSON object")
      const wrongType = yield* decode('{"email":1}')
      expect(Either.isLeft(wrongType) && wrongType.left.detail).toMatch(/^email: /)
    })
  )
})
