import { describe, expect, it } from "vitest"
import * as Router from "../../../adapters/http/Router.js"

const router = Router.make([
  { method: "GET", path: "/user", value: "get user" },
  { method: "PUT", path: "/user", value: "update user" },
  { method: "GET", path: "/user/identities/authorize", value: "link" },
  { method: "DELETE", path: "/user/identities/{identity_id}", value: "unlink" },
  { method: "GET", path: "/admin/users/{user_id}", value: "get" },
  { method: "DELETE", path: "/admin/users/{user_id}", value: "delete" },
  { method: "GET", path: "/admin/users/{user_id}/factors/{factor_id}", value: "factor" }
])

describe("Router", () => {
  it("finds literal paths and templates, with decoded parameters", () => {
    expect(router.match("PUT", "/user")).toEqual({ _tag: "Found", value: "update user", params: {} })
    expect(router.match("DELETE", "/admin/users/a%2Fb")).toEqual({
      _tag: "Found",
      value: "delete",
      params: { user_id: "a/b" }
    })
    expect(router.match("GET", "/admin/users/u1/factors/f2")).toEqual({
      _tag: "Found",
      value: "factor",
      params: { user_id: "u1", factor_id: "f2" }
    })
  })

  it("prefers a literal path, but falls through to a template for the methods the literal lacks", () => {
    expect(router.match("GET", "/user/identities/authorize")).toMatchObject({ value: "link" })
    expect(router.match("DELETE", "/user/identities/authorize")).toMatchObject({
      value: "unlink",
      params: { identity_id: "authorize" }
    })
  })

  it("says which methods a known path answers to", () => {
    const refused = router.match("POST", "/admin/users/u1")
    expect(refused._tag).toBe("MethodNotAllowed")
    if (refused._tag === "MethodNotAllowed") expect([...refused.allowed.keys()]).toEqual(["GET", "DELETE"])
  })

  it("matches paths exactly as sent: no empty or undecodable segments, no extra slashes", () => {
    for (const path of [
      "//user",
      "/user/",
      "/%75ser",
      "/admin/users/",
      "/admin/users//factors/f",
      "/admin/users/%E0%A4%A"
    ]) {
      expect(router.match("GET", path)._tag).toBe("NotFound")
    }
  })
})
