import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ResourceIndicator from "../../../domain/oauth/ResourceIndicator.js"

const api = "https://api.example.com/mcp"

describe("ResourceIndicator (RFC 8707)", () => {
  it("reads an absolute URI without a fragment as a resource", () => {
    expect(ResourceIndicator.isResourceIndicator(api)).toBe(true)
    expect(ResourceIndicator.isResourceIndicator("urn:example:resource")).toBe(true)
    expect(ResourceIndicator.isResourceIndicator("/mcp")).toBe(false)
    expect(ResourceIndicator.isResourceIndicator(`${api}#part`)).toBe(false)
  })

  it("at the exchange: the granted resource, or one restricting a grant that named none", () => {
    expect(ResourceIndicator.atExchange(Option.some(api), Option.none())).toEqual(
      Either.right(Option.some(api))
    )
    expect(ResourceIndicator.atExchange(Option.some(api), Option.some(api))).toEqual(
      Either.right(Option.some(api))
    )
    expect(ResourceIndicator.atExchange(Option.none(), Option.some(api))).toEqual(
      Either.right(Option.some(api))
    )
    expect(ResourceIndicator.atExchange(Option.none(), Option.none())).toEqual(Either.right(Option.none()))
    expect(ResourceIndicator.atExchange(Option.some(api), Option.some("https://other.example/"))).toEqual(
      Either.left("resource is not the one granted")
    )
    expect(ResourceIndicator.atExchange(Option.none(), Option.some("relative"))).toEqual(
      Either.left("resource must be an absolute URI without a fragment")
    )
  })

  it("at a refresh: none or the grant's own", () => {
    expect(ResourceIndicator.atRefresh(Option.some(api), Option.none())).toEqual(Either.void)
    expect(ResourceIndicator.atRefresh(Option.some(api), Option.some(api))).toEqual(Either.void)
    expect(ResourceIndicator.atRefresh(Option.none(), Option.none())).toEqual(Either.void)
    expect(ResourceIndicator.atRefresh(Option.none(), Option.some(api))).toEqual(
      Either.left("the grant names no resource")
    )
    expect(ResourceIndicator.atRefresh(Option.some(api), Option.some("https://other.example/"))).toEqual(
      Either.left("resource is not the one granted")
    )
  })
})
