import * as PlatformCookies from "@effect/platform/Cookies"
import * as Option from "effect/Option"
import { type HttpRequest, type HttpResponse, header } from "./HttpMessage.js"

export type CookieOptions = NonNullable<PlatformCookies.Cookie["options"]>

/** A cookie the browser sent; none when absent. */
export const read = (request: Pick<HttpRequest, "headers">, name: string): Option.Option<string> => {
  const cookies = header(request, "cookie")
  return cookies === undefined
    ? Option.none()
    : Option.fromNullable(PlatformCookies.parseHeader(cookies)[name])
}

const appended = (response: HttpResponse, cookie: PlatformCookies.Cookie): HttpResponse => {
  const existing = response.headers["set-cookie"]
  const line = PlatformCookies.serializeCookie(cookie)
  return {
    ...response,
    headers: {
      ...response.headers,
      "set-cookie":
        existing === undefined
          ? [line]
          : typeof existing === "string"
            ? [existing, line]
            : [...existing, line]
    }
  }
}

/**
 * The response with one more cookie. Names are our constants and values tokens we minted
 * (base64url), both valid cookie text, so building the cookie cannot fail.
 */
export const set = (
  response: HttpResponse,
  name: string,
  value: string,
  options: CookieOptions
): HttpResponse => appended(response, PlatformCookies.unsafeMakeCookie(name, value, options))

/** The response telling the browser to drop a cookie (same name and path, expired). */
export const expire = (
  response: HttpResponse,
  name: string,
  options: Pick<CookieOptions, "path">
): HttpResponse =>
  appended(
    response,
    PlatformCookies.unsafeMakeCookie(name, "", { ...options, maxAge: 0, expires: new Date(0) })
  )
