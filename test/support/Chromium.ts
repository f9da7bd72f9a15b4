import * as Effect from "effect/Effect"
import { type Browser, chromium } from "playwright-core"

/** Debian's Chromium; .ci/run installs it. */
export const path = "/usr/bin/chromium"

/** Headless, without the background traffic a test has no use for. */
export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: path,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })

/** A browser closed with the scope. */
export const scoped = Effect.acquireRelease(Effect.promise(launch), (browser) =>
  Effect.promise(() => browser.close())
)
