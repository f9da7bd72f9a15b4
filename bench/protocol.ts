/** Messages between the benchmark (which runs the server) and its load-generator child process. */

export type Scenario =
  | { readonly kind: "refresh"; readonly clientId: string; readonly refreshTokens: ReadonlyArray<string> }
  | {
      readonly kind: "introspect"
      readonly introspectionToken: string
      readonly accessTokens: ReadonlyArray<string>
    }
  | { readonly kind: "register"; readonly metadata: Readonly<Record<string, unknown>> }
  /** The static discovery document: no database, the floor of the HTTP stack. */
  | { readonly kind: "discovery" }

export interface LoadRequest {
  readonly url: string
  readonly connections: number
  readonly warmupSeconds: number
  readonly durationSeconds: number
  readonly scenario: Scenario
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

export type LoadMessage =
  | { readonly type: "measuring" }
  | {
      readonly type: "done"
      readonly warmup: Summary
      readonly measured: Summary
      /** Refresh tokens taken from the pool, and whether it ran dry (then requests were refused). */
      readonly poolTaken: number
      readonly poolExhausted: boolean
      /** CPU time of the load generator during the measured run, in percent of one core. */
      readonly cpuPercent: number
    }
  | { readonly type: "failed"; readonly message: string }
