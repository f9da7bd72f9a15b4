/**
 * `npm run bench`, second part: the auth service (Supabase Auth compatible) under load, on a
 * real PostgreSQL, after bench/oauth.ts.
 *
 * Starts the service as its own process, as an operator does (`node --max-semi-space-size=16
 * dist/bootstrap/cli.js auth serve`, configured by its environment, in an empty working
 * directory so that no `.env` is read), on a fresh database `latchkey_bench_<random>` on
 * SQL_URL's server (dropped at the end). The bench migrates it and gives it its RS256 signing
 * key first, through the service's own code, so that it can create the bench user and mint
 * tokens through the ports; the service finds both at its start. (A signing key of
 * `AUTHSVC_JWT_KEYS` in BENCH_SERVER_ENV signs instead, for the bench and the service alike.)
 * Then, from a child process (bench/load.ts), with autocannon:
 *
 * - user: `GET /user` with one of 500 RS256 access tokens in turn;
 * - refresh: `POST /token?grant_type=refresh_token`, every request presenting a fresh refresh
 *   token of a pool minted before the run (BENCH_AUTH_REFRESH_POOL);
 * - password: `POST /token?grant_type=password` for one user (an argon2id verify each);
 * - mixed: 64 connections of the password grant and BENCH_CONNECTIONS of `GET /user` at once,
 *   two autocannon instances in one load generator: the `GET /user` latency while passwords
 *   are being checked;
 * - signup: `POST /signup` with a new address per request, autoconfirm on (a session each);
 * - otp: `POST /otp` with a new address per request (a user, a one-time token and a queued
 *   mail each), from BENCH_AUTH_OTP_CONNECTIONS (256) connections, while a mail server in the
 *   bench's process (bench/SlowSmtpServer.ts) takes BENCH_AUTH_SMTP_DELAY (200 ms) per message;
 *   after the load the bench waits for the outbox to drain and checks that the mail server
 *   received every mail queued, at least one for every 200 answer, none twice;
 * - verify: `POST /verify` `{ type: "email", email, token }`, every request presenting the
 *   code of a user of its own, minted before the run (BENCH_AUTH_VERIFY_POOL): a session each.
 * - factor: `POST /factors/{id}/verify` `{ challenge_id, code }`, the step up to aal2 after a
 *   password sign-in: every request a user of its own with a verified TOTP factor, a session
 *   at aal1 and a pending challenge, minted before the run (BENCH_AUTH_FACTOR_POOL); the load
 *   generator computes each code from the factor's secret when it sends the request.
 *
 * One server process, one set, telemetry off. Prints and records req/s, p50/p99 latency,
 * non-2xx, errors, the CPU each process used and the server's resident memory (idle and after
 * each load); exits 1 if any request errored or got an unexpected status; otherwise records
 * the run as JSON lines in bench/results/auth.jsonl, beside the oauth service's, and rewrites
 * the current table of docs/performance.md (bench/Results.ts).
 *
 * Flags: --profile[=user|refresh|password|mixed|signup|otp|verify|factor] (that run only, default
 * refresh, the server started with --cpu-prof; the profile, written to
 * bench/profiles/auth-<kind>-….cpuprofile and summarised, covers the server's whole life;
 * nothing recorded), --only=<kind> (that run only, unprofiled; nothing recorded), --no-write
 * (nothing recorded).
 * Environment: SQL_URL, BENCH_CONNECTIONS (32), BENCH_WARMUP (2 s), BENCH_DURATION (10 s),
 * BENCH_QUIET_WAIT (60 s), as for the oauth bench; BENCH_AUTH_REFRESH_POOL (40000 tokens for
 * the refresh run), BENCH_AUTH_MIXED_PASSWORD_CONNECTIONS (64: the password side of the mixed
 * run), BENCH_AUTH_VERIFY_POOL (20000 codes for the verify run), BENCH_AUTH_OTP_CONNECTIONS
 * (256), BENCH_AUTH_SMTP_DELAY (200 ms the mail server takes per message), BENCH_AUTH_FACTOR_POOL
 * (20000 challenges for the factor run).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Secret, TOTP } from "otpauth"
import * as AuthTables from "../adapters/postgres/auth/AuthTables.js"
import * as Migrations from "../adapters/postgres/Migrations.js"
import * as NoSmsGateway from "../adapters/sms/auth/NoSmsGateway.js"
import * as Authenticate from "../application/auth/Authenticate.js"
import * as ChallengeFactor from "../application/auth/ChallengeFactor.js"
import * as EnrollFactor from "../application/auth/EnrollFactor.js"
import { ensureSigningKey } from "../application/auth/EnsureSigningKey.js"
import * as FactorInput from "../application/auth/FactorInput.js"
import * as IssueSession from "../application/auth/IssueSession.js"
import * as NewUser from "../application/auth/NewUser.js"
import { FactorStore } from "../application/auth/ports/FactorStore.js"
import { SessionStore } from "../application/auth/ports/SessionStore.js"
import { UserRepository } from "../application/auth/ports/UserRepository.js"
import * as SendVerification from "../application/auth/SendVerification.js"
import { PasswordHasher } from "../application/ports/PasswordHasher.js"
import { Secrets } from "../application/ports/Secrets.js"
import * as AuthConfig from "../bootstrap/auth/AuthConfig.js"
import * as AuthEnvironment from "../bootstrap/auth/AuthEnvironment.js"
import * as AuthLayers from "../bootstrap/auth/AuthLayers.js"
import * as AuthServer from "../bootstrap/auth/AuthServer.js"
import * as JwtKeys from "../bootstrap/auth/JwtKeys.js"
import * as AccessTokenClaims from "../domain/auth/AccessTokenClaims.js"
import * as Session from "../domain/auth/Session.js"
import type { User } from "../domain/User.js"
import { Email } from "../domain/User.js"
import * as Database from "./Database.js"
import * as Flags from "./Flags.js"
import * as Machine from "./Machine.js"
import type { FactorChallenge, MailedCode } from "./protocol.js"
import * as Report from "./Report.js"
import * as Results from "./Results.js"
import * as Runner from "./Runner.js"
import { BenchFailure } from "./Runner.js"
import * as SlowSmtpServer from "./SlowSmtpServer.js"

type Kind = "user" | "refresh" | "password" | "mixed" | "signup" | "otp" | "verify" | "factor"
const allKinds: ReadonlyArray<Kind> = [
  "user",
  "refresh",
  "password",
  "mixed",
  "signup",
  "otp",
  "verify",
  "factor"
]
const { profiled, only, record } = Flags.select(allKinds, "refresh")

const settings = {
  ...Flags.common,
  refreshPool: Flags.numberFromEnv("BENCH_AUTH_REFRESH_POOL", 40_000),
  mixedPasswordConnections: Flags.numberFromEnv("BENCH_AUTH_MIXED_PASSWORD_CONNECTIONS", 64),
  verifyPool: Flags.numberFromEnv("BENCH_AUTH_VERIFY_POOL", 20_000),
  factorPool: Flags.numberFromEnv("BENCH_AUTH_FACTOR_POOL", 20_000),
  otpConnections: Flags.numberFromEnv("BENCH_AUTH_OTP_CONNECTIONS", 256),
  smtpDelayMillis: Flags.numberFromEnv("BENCH_AUTH_SMTP_DELAY", 200),
  accessTokenPool: 500,
  /** How long the outbox may deliver nothing before the bench stops waiting for it to drain. */
  mailStallSeconds: 60
}

const password = "bench-password-1"
const email = "bench@example.com"
/** Addresses of this run: a prefix of their own, in case a run's addresses outlive it. */
const runTag = randomBytes(4).toString("hex")
const signupPrefix = `signup-${runTag}-`
const verifyPrefix = `verify-${runTag}-`
const factorPrefix = `factor-${runTag}-`
/** The addresses of one /otp load: a prefix per load, so that its mails can be counted apart. */
const otpPrefix = () => `otp-${runTag}-${randomBytes(3).toString("hex")}-`

const endpoints = {
  user: { name: "user (GET /user)", expectedStatus: 200, target: { requestsPerSecond: 4000 } },
  refresh: {
    name: "refresh grant (POST /token?grant_type=refresh_token)",
    expectedStatus: 200,
    target: { requestsPerSecond: 1500, p99: 40 }
  },
  password: {
    name: "password grant (POST /token?grant_type=password)",
    expectedStatus: 200,
    target: { requestsPerSecond: 140 }
  },
  mixedPassword: { name: "password grant", expectedStatus: 200 },
  mixedUser: { name: "GET /user", expectedStatus: 200, target: { p99: 50 } },
  signup: {
    name: "sign-up, autoconfirm (POST /signup)",
    expectedStatus: 200,
    target: { requestsPerSecond: 130 }
  },
  otp: {
    name: "sign-in by mail, a new address each (POST /otp)",
    expectedStatus: 200,
    target: { requestsPerSecond: 800 }
  },
  verify: {
    name: "mailed code verified (POST /verify type email)",
    expectedStatus: 200,
    target: { requestsPerSecond: 1000 }
  },
  factor: {
    name: "TOTP step up to aal2 (POST /factors/{id}/verify)",
    expectedStatus: 200,
    target: { requestsPerSecond: 1000 }
  }
} satisfies Record<string, Runner.Endpoint>

// ---------------------------------------------------------------------------------------------
// Database and token pools, through the service's ports
// ---------------------------------------------------------------------------------------------

/** A user with a confirmed address and its email identity, stored as a sign-up stores them. */
const insertConfirmedUser = (address: string, passwordHash: Option.Option<string>, now: Date) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const users = yield* UserRepository
    const user = NewUser.user({
      id: NewUser.newUserId(yield* secrets.uuid),
      aud: "authenticated",
      contact: { _tag: "email", email: yield* Schema.decode(Email)(address) },
      data: {},
      confirmed: true,
      now
    })
    const identity = NewUser.identity({
      id: NewUser.newIdentityId(yield* secrets.uuid),
      user,
      provider: "email",
      data: {},
      now
    })
    yield* users.insert(user, [identity], passwordHash)
    return user
  })

/**
 * What the service does at its start, done first by the bench: the migrations and the RS256
 * signing key (the service then finds it as existing). Then the bench user, with a password.
 */
const prepare = (namespace: string) =>
  Effect.gen(function* () {
    yield* Migrations.run(AuthTables.migrationTarget(namespace))
    yield* ensureSigningKey
    const passwords = yield* PasswordHasher
    const now = new Date(yield* Clock.currentTimeMillis)
    const user = yield* insertConfirmedUser(
      email,
      Option.some(yield* passwords.hash(Redacted.make(password))),
      now
    )
    return { user, postgres: yield* Database.serverInfo }
  })

/** The address every request of the bench comes from. */
const benchAddress = "127.0.0.1"

const benchClient: IssueSession.Client = {
  userAgent: Option.some("latchkey bench"),
  ip: Option.some(benchAddress)
}

/** Access tokens of sessions signed in as a password sign-in would: `IssueSession.issue`. */
const mintAccessTokens = (user: User, count: number) =>
  Effect.forEach(
    Array.from({ length: count }),
    () =>
      Effect.map(IssueSession.issue(user, "password", benchClient), (grant) =>
        Redacted.value(grant.access.token)
      ),
    { concurrency: 16 }
  )

/**
 * A session's first refresh token, stored as `IssueSession.issue` stores it, without the rest
 * of a sign-in: signing an access token nobody uses (RS256, ~1 ms of CPU) and stamping the
 * sign-in on the one bench user (a row every call would lock) would make a pool of tens of
 * thousands take minutes instead of seconds.
 */
const mintRefreshToken = (user: User) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const sessions = yield* SessionStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const refreshToken = yield* secrets.token("refresh")
    const session = Session.start(
      {
        id: Session.SessionId.make(yield* secrets.uuid),
        userId: user.id,
        aal: "aal1",
        amr: [
          new AccessTokenClaims.AmrEntry({ method: "password", timestamp: Math.floor(now.getTime() / 1000) })
        ],
        factorId: Option.none(),
        userAgent: benchClient.userAgent,
        ip: benchClient.ip,
        tag: Option.none()
      },
      now
    )
    yield* sessions.start(session, yield* secrets.hash(refreshToken))
    return Redacted.value(refreshToken)
  })

const mintRefreshTokens = (user: User, count: number) =>
  Effect.gen(function* () {
    const started = Date.now()
    const tokens = yield* Effect.forEach(Array.from({ length: count }), () => mintRefreshToken(user), {
      concurrency: 32
    })
    console.log(`  minted ${tokens.length} refresh tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    return tokens
  })

/**
 * The tables' statistics brought up to date after a pool is minted, as autovacuum's analyze does
 * within a minute of a bulk load in a deployment: a run that starts seconds after 20,000 inserts
 * would otherwise measure statements planned for the near-empty tables of the start (a
 * prepared statement keeps its plan until the statistics change).
 */
const analyze = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ANALYZE`)

/** Numbers the verify run's users across pools, so that no address comes twice. */
let mailedCodesMinted = 0

/**
 * A returning user who asked for a code by mail (`POST /otp`): a confirmed user of their own
 * (a code is used once, and a user holds one live code of a purpose) with a magic-link token
 * stored by `SendVerification.storeToken`, as the request stores it; the code in the clear, as the
 * mail carries it. The mail itself is left out: the verify run does not read mail.
 */
const mintMailedCode = (codeLength: number, lifetime: Duration.Duration) =>
  Effect.gen(function* () {
    const secrets = yield* Secrets
    const now = new Date(yield* Clock.currentTimeMillis)
    mailedCodesMinted++
    const address = `${verifyPrefix}${mailedCodesMinted}@example.com`
    const user = yield* insertConfirmedUser(address, Option.none(), now)
    const code = yield* secrets.code(codeLength)
    yield* SendVerification.storeToken(
      {
        user,
        purpose: "magic_link",
        to: address,
        link: yield* secrets.token("verification"),
        code,
        lifetime,
        flowStateId: Option.none(),
        now
      },
      Option.none()
    )
    return { email: address, code: Redacted.value(code) } satisfies MailedCode
  })

const mintMailedCodes = (count: number, codeLength: number, lifetime: Duration.Duration) =>
  Effect.gen(function* () {
    const started = Date.now()
    const codes = yield* Effect.forEach(
      Array.from({ length: count }),
      () => mintMailedCode(codeLength, lifetime),
      { concurrency: 32 }
    )
    console.log(
      `  minted ${codes.length} users with a mailed code in ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
    return codes
  })

/** Numbers the factor run's users across pools, so that no address comes twice. */
let factorChallengesMinted = 0

/**
 * A user half way through an MFA sign-in: signed in with a password (a session at aal1, through
 * `IssueSession.issue`), holding a TOTP factor and a challenge of it made from 127.0.0.1 (the
 * bench's address), as `mfa.enroll`, a verify and then `mfa.challenge` at the next sign-in leave
 * them. The factor is enrolled and challenged through the use cases; it is marked verified
 * through the store without a code, so that no time step is spent before the run (a factor takes
 * each step's code once). A user of its own each: a verify signs the user's other aal1 sessions
 * out, and a factor accepts one code a step.
 */
const mintFactorChallenge = Effect.gen(function* () {
  const now = new Date(yield* Clock.currentTimeMillis)
  factorChallengesMinted++
  const user = yield* insertConfirmedUser(
    `${factorPrefix}${factorChallengesMinted}@example.com`,
    Option.none(),
    now
  )
  const accessToken = Redacted.value((yield* IssueSession.issue(user, "password", benchClient)).access.token)
  const signedIn = yield* Authenticate.user(accessToken)
  const enrolled = yield* EnrollFactor.enrollFactor(signedIn, {
    factorType: "totp",
    friendlyName: "",
    issuer: "",
    phone: ""
  })
  if (enrolled._tag !== "Totp") {
    return yield* new BenchFailure({ message: `a TOTP enrolment answered ${enrolled._tag}` })
  }
  yield* Effect.flatMap(FactorStore, (factors) =>
    factors.markVerified(user.id, enrolled.factor.id, now, Option.none())
  )
  const owner = yield* FactorInput.owningFactor(signedIn, enrolled.factor.id)
  const challenged = yield* ChallengeFactor.challengeFactor(owner, { channel: "", ipAddress: benchAddress })
  return {
    accessToken,
    factorId: enrolled.factor.id,
    challengeId: challenged.id,
    secret: Redacted.value(enrolled.secret)
  } satisfies FactorChallenge
})

const mintFactorChallenges = (count: number) =>
  Effect.gen(function* () {
    const started = Date.now()
    const challenges = yield* Effect.forEach(Array.from({ length: count }), () => mintFactorChallenge, {
      concurrency: 32
    })
    console.log(
      `  minted ${challenges.length} users with a TOTP challenge in ${((Date.now() - started) / 1000).toFixed(1)} s`
    )
    return challenges
  })

// ---------------------------------------------------------------------------------------------
// The mail of the otp run, delivered
// ---------------------------------------------------------------------------------------------

/** The outbox's rows for the addresses of one prefix: queued, delivered, given up. */
const outboxOf = (prefix: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* AuthTables.AuthTables
    const [row] = yield* sql<{
      readonly queued: number
      readonly delivered: number
      readonly abandoned: number
    }>`SELECT count(*)::int AS queued, count(delivered_at)::int AS delivered,
              count(given_up_at)::int AS abandoned
       FROM ${sql(tables.name("mail_outbox"))} WHERE recipient LIKE ${`${prefix}%`}`
    return row ?? { queued: 0, delivered: 0, abandoned: 0 }
  })

/**
 * After an otp load: waits until the outbox has no mail of the load left to send (or nothing
 * has arrived for `mailStallSeconds`), then checks that the mail server received every mail
 * queued, none twice, and at least as many as the service answered 200 — requests still in
 * flight when autocannon stops a phase are not counted as answered, though the service may have
 * queued their mail — and records how fast the outbox drained.
 */
const drainMail = (
  prefix: string,
  answered: number,
  smtp: SlowSmtpServer.SlowSmtpServer,
  outbox: (
    prefix: string
  ) => Effect.Effect<{ queued: number; delivered: number; abandoned: number }, BenchFailure>
) =>
  Effect.gen(function* () {
    const started = Date.now()
    const atLoadEnd = smtp.received(prefix).messages
    let arrived = atLoadEnd
    let lastArrival = started
    let nextReport = started + 30_000
    let rows = yield* outbox(prefix)
    console.log(`  waiting for the outbox to deliver ${rows.queued - rows.delivered - rows.abandoned} mails…`)
    while (rows.delivered + rows.abandoned < rows.queued) {
      if (Date.now() - lastArrival > settings.mailStallSeconds * 1000) break
      yield* Effect.sleep(Duration.seconds(1))
      rows = yield* outbox(prefix)
      const now = smtp.received(prefix).messages
      if (now > arrived) {
        arrived = now
        lastArrival = Date.now()
      }
      if (Date.now() >= nextReport) {
        console.log(`  ${now} of ${rows.queued} mails received`)
        nextReport += 30_000
      }
    }
    const seconds = (Date.now() - started) / 1000
    const received = smtp.received(prefix)
    const drained = received.messages - atLoadEnd
    const problems = [
      ...(rows.queued >= answered ? [] : [`${rows.queued} mails queued for ${answered} answers 200`]),
      ...(received.messages === rows.queued
        ? []
        : [`the mail server received ${received.messages} of the ${rows.queued} mails queued`]),
      ...(received.recipients === received.messages
        ? []
        : [`${received.messages - received.recipients} addresses received more than one mail`]),
      ...(rows.abandoned === 0 ? [] : [`${rows.abandoned} mails given up`])
    ]
    const note = [
      `Mail: ${Report.fixed(answered)} answers 200 (warm-up included), ${Report.fixed(rows.queued)} mails queued;`,
      `the mail server (${settings.smtpDelayMillis} ms a message) received ${Report.fixed(received.messages)}, to ${Report.fixed(received.recipients)} distinct addresses:`,
      `${Report.fixed(atLoadEnd)} while the load ran, the other ${Report.fixed(drained)} in the ${Report.fixed(seconds)} s after it`,
      `(${Report.fixed(seconds === 0 ? 0 : drained / seconds, 1)} mails/s); ${Report.fixed(rows.abandoned)} given up.`
    ].join(" ")
    return { notes: [note], problems } satisfies Runner.Settled
  })

// ---------------------------------------------------------------------------------------------
// Smoke test: one request of each kind, checked by body, before putting load on them
// ---------------------------------------------------------------------------------------------

/** The `alg` of a JWT's header. */
const algorithmOf = (jwt: string): unknown => {
  const header: unknown = JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString("utf8"))
  return typeof header === "object" && header !== null && "alg" in header ? header.alg : undefined
}

/** A claim of a JWT's payload. */
const claimOf = (jwt: string, name: string): unknown => {
  const payload: unknown = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8"))
  return typeof payload === "object" && payload !== null && name in payload
    ? Object.entries(payload).find(([key]) => key === name)?.[1]
    : undefined
}

/** The address of the smoke test's one-time sign-in: its mail must arrive before any load. */
const smokeOtpPrefix = `smoke-${runTag}-`

const smoke = (
  baseUrl: string,
  refreshToken: string,
  accessToken: string,
  mailed: MailedCode,
  challenge: FactorChallenge,
  smtp: SlowSmtpServer.SlowSmtpServer,
  algorithm: string
) =>
  Effect.tryPromise({
    try: async () => {
      const call = async (method: string, path: string, body?: unknown, bearer?: string) => {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            "content-type": "application/json",
            ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` })
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        const parsed: unknown = await response.json()
        const fields: Record<string, unknown> =
          typeof parsed === "object" && parsed !== null ? { ...parsed } : {}
        return { status: response.status, body: fields }
      }
      const alg = algorithmOf(accessToken)
      if (alg !== algorithm)
        throw new Error(`the access tokens are signed with ${String(alg)}, not ${algorithm}`)
      const user = await call("GET", "/user", undefined, accessToken)
      if (user.status !== 200 || user.body.email !== email) {
        throw new Error(`GET /user: ${user.status} ${JSON.stringify(user.body)}`)
      }
      const refreshed = await call("POST", "/token?grant_type=refresh_token", { refresh_token: refreshToken })
      if (refreshed.status !== 200 || typeof refreshed.body.refresh_token !== "string") {
        throw new Error(`refresh: ${refreshed.status} ${JSON.stringify(refreshed.body)}`)
      }
      const signedIn = await call("POST", "/token?grant_type=password", { email, password })
      if (signedIn.status !== 200 || typeof signedIn.body.access_token !== "string") {
        throw new Error(`password grant: ${signedIn.status} ${JSON.stringify(signedIn.body)}`)
      }
      const signedUp = await call("POST", "/signup", { email: `${signupPrefix}smoke@example.com`, password })
      if (signedUp.status !== 200 || typeof signedUp.body.access_token !== "string") {
        throw new Error(`sign-up: ${signedUp.status} ${JSON.stringify(signedUp.body)}`)
      }
      const otp = await call("POST", "/otp", { email: `${smokeOtpPrefix}1@example.com` })
      if (otp.status !== 200 || Object.keys(otp.body).length !== 0) {
        throw new Error(`POST /otp: ${otp.status} ${JSON.stringify(otp.body)}`)
      }
      const verified = await call("POST", "/verify", {
        type: "email",
        email: mailed.email,
        token: mailed.code
      })
      const session = verified.body.access_token
      if (verified.status !== 200 || typeof session !== "string" || algorithmOf(session) !== algorithm) {
        throw new Error(`POST /verify: ${verified.status} ${JSON.stringify(verified.body)}`)
      }
      const code = new TOTP({ secret: Secret.fromBase32(challenge.secret) }).generate()
      const stepUp = await call(
        "POST",
        `/factors/${challenge.factorId}/verify`,
        { challenge_id: challenge.challengeId, code },
        challenge.accessToken
      )
      const raised = stepUp.body.access_token
      if (stepUp.status !== 200 || typeof raised !== "string" || claimOf(raised, "aal") !== "aal2") {
        throw new Error(`POST /factors/{id}/verify: ${stepUp.status} ${JSON.stringify(stepUp.body)}`)
      }
      // The worker polls the outbox every second; the mail server then takes its delay.
      const deadline = Date.now() + 15_000
      while (smtp.received(smokeOtpPrefix).messages === 0) {
        if (Date.now() > deadline)
          throw new Error("the mail of POST /otp did not reach the mail server in 15 s")
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    catch: (error) => new BenchFailure({ message: `smoke test failed: ${String(error)}` })
  })

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const single = (
  endpoint: Runner.Endpoint,
  scenario: Runner.StreamPlan["scenario"],
  connections = settings.connections
): Runner.RunPlan => ({
  name: endpoint.name,
  streams: [{ endpoint, connections, scenario }]
})

const planOf = (
  kind: Kind,
  accessTokens: ReadonlyArray<string>,
  mint: (count: number) => Effect.Effect<ReadonlyArray<string>, BenchFailure>,
  mintCodes: (count: number) => Effect.Effect<ReadonlyArray<MailedCode>, BenchFailure>,
  mintChallenges: (count: number) => Effect.Effect<ReadonlyArray<FactorChallenge>, BenchFailure>
): Effect.Effect<Runner.RunPlan, BenchFailure> => {
  switch (kind) {
    case "user":
      return Effect.succeed(single(endpoints.user, { kind: "auth-user", accessTokens }))
    case "refresh":
      return Effect.map(mint(settings.refreshPool), (refreshTokens) =>
        single(endpoints.refresh, { kind: "auth-refresh", refreshTokens })
      )
    case "password":
      return Effect.succeed(single(endpoints.password, { kind: "auth-password", email, password }))
    case "mixed":
      return Effect.succeed({
        name: "mixed",
        streams: [
          {
            endpoint: endpoints.mixedPassword,
            connections: settings.mixedPasswordConnections,
            scenario: { kind: "auth-password", email, password }
          },
          {
            endpoint: endpoints.mixedUser,
            connections: settings.connections,
            scenario: { kind: "auth-user", accessTokens }
          }
        ]
      })
    case "signup":
      return Effect.succeed(
        single(endpoints.signup, { kind: "auth-signup", emailPrefix: signupPrefix, password })
      )
    case "otp":
      // Many people asking for a code at once are many connections. Answers that must not tell
      // a known address from an unknown one by their time may be held to a floor (200 ms): the
      // throughput of a few connections would be that floor's, not the service's.
      return Effect.succeed(
        single(endpoints.otp, { kind: "auth-otp", emailPrefix: otpPrefix() }, settings.otpConnections)
      )
    case "verify":
      return Effect.map(mintCodes(settings.verifyPool), (codes) =>
        single(endpoints.verify, { kind: "auth-verify", codes })
      )
    case "factor":
      return Effect.map(mintChallenges(settings.factorPool), (challenges) =>
        single(endpoints.factor, { kind: "auth-factor-verify", challenges })
      )
  }
}

/** The 200 answers of a stream, warm-up and measured run together. */
const answered = (stream: Runner.StreamOutcome) =>
  (stream.warmup.statusCodes["200"] ?? 0) + (stream.measured.statusCodes["200"] ?? 0)

/** The served process's settings beyond the bench's own (BENCH_SERVER_ENV, BENCH_DATABASE_PORT). */
const overridesText = (overrides: ReturnType<typeof Flags.serverOverrides>) => [
  ...(Object.keys(overrides.env).length === 0 ? [] : [`BENCH_SERVER_ENV ${JSON.stringify(overrides.env)}`]),
  ...(overrides.databasePort === undefined
    ? []
    : [`its database reached through port ${overrides.databasePort} (BENCH_DATABASE_PORT)`])
]

const runLines = (
  at: Date,
  machine: Machine.Machine,
  overrides: ReturnType<typeof Flags.serverOverrides>,
  algorithm: string,
  results: ReadonlyArray<Runner.VariantResult>
) =>
  Results.linesOf({
    bench: "auth",
    at,
    machine,
    server: [
      `\`node ${Runner.serverFlags.auth.join(" ")} dist/bootstrap/cli.js auth serve\`, its own process, ${algorithm} signing key, autoconfirm`,
      `mail over SMTP to a server in the bench's process that takes ${settings.smtpDelayMillis} ms per message`,
      ...overridesText(overrides)
    ],
    results,
    memoryTargets: undefined
  })

const main = Effect.gen(function* () {
  const smtp = yield* SlowSmtpServer.start(settings.smtpDelayMillis)
  const database = yield* Database.fresh(settings.adminUrl)
  console.log(`database ${database.name}`)
  const dataDir = mkdtempSync(join(os.tmpdir(), "latchkey-bench-auth-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const port = yield* Database.freePort
  const baseUrl = `http://127.0.0.1:${port}`
  const overrides = Flags.serverOverrides()
  const served = new URL(database.url)
  if (overrides.databasePort !== undefined) served.port = overrides.databasePort
  const serverEnv: Record<string, string> = {
    DATABASE_URL: served.href,
    LATCHKEY_DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    AUTHSVC_API_HOST: "127.0.0.1",
    AUTHSVC_API_PORT: String(port),
    AUTHSVC_SITE_URL: "http://127.0.0.1:3000",
    AUTHSVC_API_EXTERNAL_URL: baseUrl,
    AUTHSVC_JWT_SECRET: randomBytes(32).toString("base64url"),
    AUTHSVC_MAILER_AUTOCONFIRM: "true",
    AUTHSVC_SMTP_HOST: "127.0.0.1",
    AUTHSVC_SMTP_PORT: String(smtp.port),
    AUTHSVC_SMTP_ADMIN_EMAIL: "auth@example.com",
    // Every request of the bench comes from 127.0.0.1: one client, far above any real limit;
    // and the service-wide cap on mails would stop the otp run after its first few requests.
    AUTHSVC_RATE_LIMIT_TOKEN_REFRESH: "1000000000",
    AUTHSVC_RATE_LIMIT_OTP: "1000000000",
    AUTHSVC_RATE_LIMIT_VERIFY: "1000000000",
    AUTHSVC_RATE_LIMIT_EMAIL_SENT: "1000000000",
    AUTHSVC_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "1000000000",
    ...overrides.env
  }
  const config = yield* Effect.withConfigProvider(
    AuthConfig.server,
    AuthEnvironment.provider(new Map(Object.entries(serverEnv)))
  )
  // What signs the access tokens: a key of AUTHSVC_JWT_KEYS (through BENCH_SERVER_ENV), else the
  // RS256 key the service makes on its first start.
  const algorithm = JwtKeys.signingKey(config.jwt.keys)?.alg ?? "RS256"
  // The bench's own connection to the database, through the ports, to prepare the data.
  const core = yield* Layer.build(AuthLayers.core(config))
  const prepared = yield* prepare(config.db.namespace).pipe(Effect.provide(core))
  const accessTokens = yield* mintAccessTokens(prepared.user, settings.accessTokenPool).pipe(
    Effect.provide(AuthServer.settings(config)),
    Effect.provide(core)
  )
  const mint = (count: number) =>
    mintRefreshTokens(prepared.user, count).pipe(
      Effect.tap(() => analyze),
      Effect.provide(core),
      Effect.mapError((error) => new BenchFailure({ message: `minting refresh tokens: ${String(error)}` }))
    )
  const mintCodes = (count: number) =>
    mintMailedCodes(count, config.mailer.otpLength, Duration.seconds(config.mailer.otpExpSeconds)).pipe(
      Effect.tap(() => analyze),
      Effect.provide(core),
      Effect.mapError((error) => new BenchFailure({ message: `minting mailed codes: ${String(error)}` }))
    )
  const mintChallenges = (count: number) =>
    mintFactorChallenges(count).pipe(
      Effect.tap(() => analyze),
      // The bench has no SMS gateway, as the served process: a TOTP challenge texts nothing.
      Effect.provide(
        Layer.mergeAll(AuthServer.settings(config), AuthServer.mfaSettings(config), NoSmsGateway.layer)
      ),
      Effect.provide(core),
      Effect.mapError((error) => new BenchFailure({ message: `minting factor challenges: ${String(error)}` }))
    )
  const outbox = (prefix: string) =>
    outboxOf(prefix).pipe(
      Effect.provide(core),
      Effect.mapError((error) => new BenchFailure({ message: `reading the mail outbox: ${String(error)}` }))
    )
  const service: Runner.Service<Kind> = {
    service: "auth",
    readyPath: "/health",
    cwd: dataDir,
    baseUrl,
    database: database.name,
    serverEnv,
    smoke: Effect.flatMap(
      Effect.all([mint(1), mintCodes(1), mintChallenges(1)]),
      ([[spare], [mailed], [challenge]]) =>
        smoke(
          baseUrl,
          spare ?? "",
          accessTokens[0] ?? "",
          mailed ?? { email: "", code: "" },
          challenge ?? { accessToken: "", factorId: "", challengeId: "", secret: "" },
          smtp,
          algorithm
        )
    ),
    kinds: only === undefined ? allKinds : [only],
    plan: (kind) => planOf(kind, accessTokens, mint, mintCodes, mintChallenges),
    afterLoad: (plan, outcome) => {
      const stream = outcome.streams[0]
      const scenario = plan.streams[0]?.scenario
      return scenario?.kind === "auth-otp" && stream !== undefined
        ? drainMail(scenario.emailPrefix, answered(stream), smtp, outbox)
        : Effect.succeed(undefined)
    }
  }
  const variant: Runner.Variant = { name: "telemetry off", env: {}, sets: 1, telemetry: false }
  const profileDirectory =
    profiled === undefined ? undefined : mkdtempSync(join(os.tmpdir(), "latchkey-profile-"))
  const result = yield* Effect.scoped(Runner.runVariant(variant, service, profileDirectory))
  if (profiled !== undefined && profileDirectory !== undefined) {
    yield* Runner.keepProfile(`auth-${profiled}`, profileDirectory).pipe(
      Effect.ensuring(Effect.sync(() => rmSync(profileDirectory, { recursive: true, force: true })))
    )
  }
  const problems = Runner.problemsOfAll([result])
  if (problems.length > 0) {
    return yield* new BenchFailure({ message: `the run failed:\n  ${problems.join("\n  ")}` })
  }
  if (record)
    Results.record(
      "auth",
      runLines(new Date(), Machine.describe(prepared.postgres), overrides, algorithm, [result])
    )
})

Runner.runMain(main)
