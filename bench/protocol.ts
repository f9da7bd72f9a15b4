/** Messages between a benchmark (which runs the server) and its load-generator child process. */

export type Scenario =
  // The oauth service (bench/oauth.ts).
  | { readonly kind: "refresh"; readonly clientId: string; readonly refreshTokens: ReadonlyArray<string> }
  | {
      readonly kind: "introspect"
      readonly introspectionToken: string
      readonly accessTokens: ReadonlyArray<string>
    }
  | { readonly kind: "register"; readonly metadata: Readonly<Record<string, unknown>> }
  /** The static discovery document: no database, the floor of the HTTP stack. */
  | { readonly kind: "discovery" }
  // The auth service (bench/auth.ts), Supabase Auth's wire: JSON bodies, the grant in the query.
  /** `GET /user`, each request with one of the access tokens in turn. */
  | { readonly kind: "auth-user"; readonly accessTokens: ReadonlyArray<string> }
  /** `POST /token?grant_type=refresh_token`, each request presenting a token of its own. */
  | { readonly kind: "auth-refresh"; readonly refreshTokens: ReadonlyArray<string> }
  /** `POST /token?grant_type=password`, one user over and over. */
  | { readonly kind: "auth-password"; readonly email: string; readonly password: string }
  /** `POST /signup`, a new address per request: `<prefix><n>@example.com`. */
  | { readonly kind: "auth-signup"; readonly emailPrefix: string; readonly password: string }
  /** `POST /otp` with a new address per request, `<prefix><n>@example.com`: a user and a mail each. */
  | { readonly kind: "auth-otp"; readonly emailPrefix: string }
  /** `POST /verify` `{ type: "email", email, token }`, each request presenting a code of its own. */
  | { readonly kind: "auth-verify"; readonly codes: ReadonlyArray<MailedCode> }
  /**
   * `POST /factors/{id}/verify` `{ challenge_id, code }` with the challenge's session's access
   * token, each request presenting a challenge of its own and the TOTP code of the moment.
   */
  | { readonly kind: "auth-factor-verify"; readonly challenges: ReadonlyArray<FactorChallenge> }

/** A code as mailed to a user: the address it went to and its digits. */
export interface MailedCode {
  readonly email: string
  readonly code: string
}

/** A pending MFA challenge: the session's access token, the factor, the challenge and the TOTP secret. */
export interface FactorChallenge {
  readonly accessToken: string
  readonly factorId: string
  readonly challengeId: string
  /** Base32, as the enrolment answered it. */
  readonly secret: string
}

/** One autocannon instance: its connections and what they send. */
export interface Stream {
  readonly connections: number
  readonly scenario: Scenario
}

export interface LoadRequest {
  readonly url: string
  readonly warmupSeconds: number
  readonly durationSeconds: number
  /** Run at the same time, each by an autocannon instance of its own, warm-up and measured run alike. */
  readonly streams: ReadonlyArray<Stream>
}

export interface Summary {
  /** Mean of the per-second request counts, as autocannon reports it. */
  readonly requestsPerSecond: number
  readonly requests: number
  readonly seconds: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly non2xx: number
  /** Connection errors, timeouts included. */
  readonly errors: number
  readonly timeouts: number
  readonly statusCodes: Readonly<Record<string, number>>
}

/** What one stream did, in the order of `LoadRequest.streams`. */
export interface StreamResult {
  readonly warmup: Summary
  readonly measured: Summary
  /** Tokens taken from a pool presented once each, and whether it ran dry (then requests were refused). */
  readonly poolTaken: number
  readonly poolExhausted: boolean
}

export type LoadMessage =
  | { readonly type: "measuring" }
  | {
      readonly type: "done"
      readonly streams: ReadonlyArray<StreamResult>
      /** CPU time of the load generator during the measured run, in percent of one core. */
      readonly cpuPercent: number
    }
  | { readonly type: "failed"; readonly message: string }
