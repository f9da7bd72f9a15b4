import * as Context from "effect/Context"

/** What the auth service's HTTP driver needs beyond the use cases' settings (`AuthSettings`). */
export class AuthHttpConfig extends Context.Tag("latchkey/auth/AuthHttpConfig")<
  AuthHttpConfig,
  {
    /** The build's version, as GET /health reports it. */
    readonly version: string
  }
>() {}
