import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as AuthServerHarness from "./AuthServerHarness.js"
import * as SmtpCatcher from "./SmtpCatcher.js"

/** The auth service confirming by mail, its mail caught by a real SMTP server. */
export interface MailingAuth {
  readonly baseUrl: string
  readonly catcher: SmtpCatcher.SmtpCatcher
  /** Stops the service and the SMTP server. */
  readonly close: () => Promise<void>
}

/** Starts both, for a test file's `beforeAll`; `close` in its `afterAll`. */
export const start = async (env: Readonly<Record<string, string>> = {}): Promise<MailingAuth> => {
  const scope = Effect.runSync(Scope.make())
  const catcher = await Effect.runPromise(Scope.extend(SmtpCatcher.start, scope))
  const running = await Effect.runPromise(
    Scope.extend(AuthServerHarness.start({ env: { ...SmtpCatcher.mailingEnv(catcher), ...env } }), scope)
  )
  return { baseUrl: running.baseUrl, catcher, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
