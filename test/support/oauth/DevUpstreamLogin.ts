/**
 * Plays the browser at the dev upstream: from the authorization URL through its login form to
 * the redirect back to our callback, which it returns without requesting it (the test hands
 * it to `exchange`). Plain fetch with `redirect: "manual"` and a tiny cookie jar, because
 * fetch does not carry cookies across redirects.
 */

/** Cookies by name. Paths are ignored: every cookie goes to the one upstream origin. */
type Jar = Map<string, string>

const remember = (jar: Jar, response: Response) => {
  for (const header of response.headers.getSetCookie()) {
    const [pair = "", ...attributes] = header.split(";")
    const separator = pair.indexOf("=")
    if (separator <= 0) continue
    const name = pair.slice(0, separator).trim()
    const value = pair.slice(separator + 1).trim()
    const expired = attributes.some((attribute) => {
      const [key = "", setting = ""] = attribute.split("=").map((part) => part.trim())
      const lowered = key.toLowerCase()
      return (
        (lowered === "max-age" && Number(setting) <= 0) ||
        (lowered === "expires" && Date.parse(setting) <= Date.now())
      )
    })
    if (expired || value === "") jar.delete(name)
    else jar.set(name, value)
  }
}

const request = async (jar: Jar, url: URL, init: RequestInit = {}): Promise<Response> => {
  const headers = new Headers(init.headers)
  if (jar.size > 0) {
    headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "))
  }
  const response = await fetch(url, { ...init, headers, redirect: "manual" })
  remember(jar, response)
  return response
}

const formAction = /<form\b[^>]*\baction="([^"]+)"/i

export const loginThroughForm = async (authorizationUrl: URL, email: string): Promise<URL> => {
  const jar: Jar = new Map()
  const upstream = authorizationUrl.origin
  let url = authorizationUrl
  let response = await request(jar, url)
  let submitted = false
  for (let step = 0; step < 10; step++) {
    const location = response.headers.get("location")
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel()
      url = new URL(location, url)
      // Leaving the upstream: this is the redirect to our callback.
      if (url.origin !== upstream) return url
      response = await request(jar, url)
      continue
    }
    const body = await response.text()
    const action = formAction.exec(body)?.[1]
    if (response.status !== 200 || action === undefined || submitted) {
      throw new Error(`The upstream answered ${response.status} at ${url.pathname}: ${body.slice(0, 300)}`)
    }
    submitted = true
    url = new URL(action.replaceAll("&amp;", "&"), url)
    response = await request(jar, url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email }).toString()
    })
  }
  throw new Error("The upstream redirected too many times")
}
