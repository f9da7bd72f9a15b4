import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Mailbox from "../../support/auth/Mailbox.js"
import * as MailingAuth from "../../support/auth/MailingAuth.js"
import * as SupabaseClientSupport from "../../support/auth/SupabaseClient.js"
import * as Chromium from "../../support/Chromium.js"

/** The application the links lead back to: on another origin, as a real one is. */
const startApp = () =>
  new Promise<{ server: Server; url: string }>((resolve) => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end('<h1 id="landed">landed</h1>')
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({
        server,
        url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
      })
    })
  })

let app: { server: Server; url: string }
let mailing: MailingAuth.MailingAuth
let browser: Browser
let anonKey = ""
let serviceKey = ""

beforeAll(async () => {
  app = await startApp()
  mailing = await MailingAuth.start({
    AUTHSVC_SITE_URL: app.url,
    AUTHSVC_MAILER_LINK_CONFIRMATION_PAGE: "true"
  })
  anonKey = await SupabaseClientSupport.apiKey("anon")
  serviceKey = await SupabaseClientSupport.apiKey("service_role")
  browser = await Chromium.launch()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await mailing?.close()
  await new Promise((resolve) => app?.server.close(resolve))
})

const freshEmail = () => `user-${crypto.randomUUID()}@example.com`

/** A confirmed user's magic link, mailed for real and read from the caught mail. */
const magicLink = async (auth: MailingAuth.MailingAuth, redirectTo: string) => {
  const email = freshEmail()
  const admin = SupabaseClientSupport.client(auth.baseUrl, serviceKey)
  expect((await admin.auth.admin.createUser({ email, email_confirm: true })).error).toBeNull()
  const supabase = SupabaseClientSupport.client(auth.baseUrl, anonKey)
  const sent = await supabase.auth.signInWithOtp({ email, options: { emailRedirectTo: redirectTo } })
  expect(sent.error).toBeNull()
  const mail = await Mailbox.mailTo(auth.catcher, email)
  expect(mail.subject).toBe("Your sign-in link")
  const { link } = Mailbox.linkAndCode(mail.text)
  expect(link.searchParams.get("type")).toBe("magiclink")
  return { email, link, supabase }
}

/** What a mail security scanner or a link preview does with every link: it opens it. */
const scan = async (link: URL) => {
  const get = await fetch(link, { redirect: "manual" })
  const head = await fetch(link, { method: "HEAD", redirect: "manual" })
  const prefetch = await fetch(link, { redirect: "manual", headers: { "sec-purpose": "prefetch" } })
  return { get, body: await get.text(), head, prefetch }
}

describe("scanner-safe links (MAILER_LINK_CONFIRMATION_PAGE)", () => {
  it("a scanner's GET, HEAD and prefetch use nothing; the person's press in a browser signs in, once", async () => {
    expect(existsSync(Chromium.path)).toBe(true)
    const { email, link, supabase } = await magicLink(mailing, `${app.url}/welcome`)

    const scanned = await scan(link)
    for (const answer of [scanned.get, scanned.head, scanned.prefetch]) {
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(answer.headers.get("cache-control")).toBe("no-store")
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer")
      expect(answer.headers.get("x-robots-tag")).toContain("noindex")
      const policy = answer.headers.get("content-security-policy") ?? ""
      expect(policy).toContain("default-src 'none'")
      expect(policy).toContain(`form-action 'self' ${app.url}`)
      expect(policy).toContain("frame-ancestors 'none'")
      expect(policy).not.toContain("script-src")
    }
    expect(scanned.body).toContain('<form method="post" action="verify">')
    expect(scanned.body).toContain(`name="token" value="${link.searchParams.get("token")}"`)
    expect(scanned.body).not.toMatch(/<script|<link|<img|src=/i)

    const page = await browser.newPage()
    const violations: Array<string> = []
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
    })
    await page.goto(link.toString())
    expect(await page.title()).toBe("Sign in")
    await Promise.all([page.waitForURL(`${app.url}/welcome**`), page.click("button")])
    expect(await page.textContent("#landed")).toBe("landed")
    const fragment = new URLSearchParams(new URL(page.url()).hash.slice(1))
    expect(fragment.get("type")).toBe("magiclink")
    const accessToken = fragment.get("access_token") ?? ""
    expect((await supabase.auth.getUser(accessToken)).data.user?.email).toBe(email)
    expect(violations).toEqual([])

    // The page again (it is never cached) and a second press: the token is used up.
    await page.goBack()
    expect(await page.title()).toBe("Sign in")
    await Promise.all([page.waitForURL(`${app.url}/welcome**`), page.click("button")])
    const again = new URLSearchParams(new URL(page.url()).hash.slice(1))
    expect(again.get("error_code")).toBe("otp_expired")
    expect(again.get("access_token")).toBeNull()
    await page.close()

    // And the form posted by anything else: the same answer.
    const posted = await fetch(new URL("verify", link), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: link.searchParams.get("token") ?? "",
        type: "magiclink",
        redirect_to: `${app.url}/welcome`
      }),
      redirect: "manual"
    })
    expect(posted.status).toBe(303)
    expect(Mailbox.fragmentOf(posted.headers.get("location")).get("error_code")).toBe("otp_expired")
  }, 60_000)

  it("under the gateway's prefix the page posts back under it too", async () => {
    const { email, link, supabase } = await magicLink(mailing, `${app.url}/welcome`)
    const prefixed = new URL(`/auth/v1/verify${link.search}`, link)
    const page = await browser.newPage()
    const posts: Array<string> = []
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(new URL(request.url()).pathname)
    })
    await page.goto(prefixed.toString())
    await Promise.all([page.waitForURL(`${app.url}/welcome**`), page.click("button")])
    expect(posts).toEqual(["/auth/v1/verify"])
    const token = new URLSearchParams(new URL(page.url()).hash.slice(1)).get("access_token") ?? ""
    expect((await supabase.auth.getUser(token)).data.user?.email).toBe(email)
    await page.close()
  }, 60_000)

  it("verifyOtp with the link's token still works over JSON", async () => {
    const { email, link, supabase } = await magicLink(mailing, `${app.url}/welcome`)
    await scan(link)
    const verified = await supabase.auth.verifyOtp({
      token_hash: link.searchParams.get("token") ?? "",
      type: "magiclink"
    })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.email).toBe(email)
  })

  it("in the PKCE flow the press redirects with a code that exchangeCodeForSession takes", async () => {
    const supabase = SupabaseClientSupport.pkceClient(mailing.baseUrl, anonKey)
    const email = freshEmail()
    const signUp = await supabase.auth.signUp({
      email,
      password: "correct horse battery staple",
      options: { emailRedirectTo: `${app.url}/callback` }
    })
    expect(signUp.error).toBeNull()
    const { link } = Mailbox.linkAndCode((await Mailbox.mailTo(mailing.catcher, email)).text)
    expect((await scan(link)).get.status).toBe(200)
    const page = await browser.newPage()
    await page.goto(link.toString())
    expect(await page.title()).toBe("Confirm your email address")
    await Promise.all([page.waitForURL(`${app.url}/callback?code=**`), page.click("button")])
    const code = new URL(page.url()).searchParams.get("code") ?? ""
    await page.close()
    const exchanged = await supabase.auth.exchangeCodeForSession(code)
    expect(exchanged.error).toBeNull()
    expect(exchanged.data.user?.email).toBe(email)
  }, 60_000)

  it("escapes whatever the link carries into the page, and allows only the settled target as the form's redirect", async () => {
    const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>`
    const url = new URL("/verify", mailing.baseUrl)
    url.searchParams.set("token", hostile)
    url.searchParams.set("type", "magiclink")
    url.searchParams.set("redirect_to", `https://evil.example/${hostile}`)
    const answer = await fetch(url, { redirect: "manual" })
    expect(answer.status).toBe(200)
    const body = await answer.text()
    expect(body).not.toContain("<script")
    expect(body).not.toContain("<img")
    expect(body).toContain(
      'name="token" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"'
    )
    expect(body).toContain('name="redirect_to" value="https://evil.example/&quot;&gt;&lt;script&gt;')
    const policy = answer.headers.get("content-security-policy") ?? ""
    expect(policy).not.toContain("evil.example")
    expect(policy).toContain(`form-action 'self' ${app.url}`)

    // A link that could never work is answered as following it is: JSON, nothing to press.
    const untyped = await fetch(new URL("/verify?token=abc", mailing.baseUrl), { redirect: "manual" })
    expect(untyped.status).toBe(400)
    expect(await untyped.json()).toMatchObject({ error_code: "validation_failed" })
  })
})

describe("without MAILER_LINK_CONFIRMATION_PAGE", () => {
  it("a GET uses the link as Supabase Auth does; a HEAD or a prefetch before it uses nothing", async () => {
    const plain = await MailingAuth.start({ AUTHSVC_SITE_URL: app.url })
    try {
      const { email, link, supabase } = await magicLink(plain, `${app.url}/welcome`)
      const head = await fetch(link, { method: "HEAD", redirect: "manual" })
      expect(head.status).toBe(200)
      const prefetch = await fetch(link, { redirect: "manual", headers: { purpose: "prefetch" } })
      expect(prefetch.status).toBe(200)
      expect(prefetch.headers.get("cache-control")).toBe("no-store")

      const followed = await fetch(link, { redirect: "manual" })
      expect(followed.status).toBe(303)
      const location = followed.headers.get("location") ?? ""
      expect(location.startsWith(`${app.url}/welcome#`)).toBe(true)
      const token = Mailbox.fragmentOf(location).get("access_token") ?? ""
      expect((await supabase.auth.getUser(token)).data.user?.email).toBe(email)

      const again = await fetch(link, { redirect: "manual" })
      expect(Mailbox.fragmentOf(again.headers.get("location")).get("error_code")).toBe("otp_expired")
    } finally {
      await plain.close()
    }
  }, 60_000)
})
