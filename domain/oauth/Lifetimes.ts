import * as Duration from "effect/Duration"

/** an opaque access token (`user_tokens`) lives 7 days and is never extended. */
export const oauthAccessToken = Duration.days(7)

/** a refresh token lives 30 days after its family was last used (sliding). */
export const oauthRefreshToken = Duration.days(30)

/** a dynamically registered client with no authorize request for 90 days is reaped. */
export const dynamicClientIdle = Duration.days(90)

/**
 * our own authorization code. RFC 6749 §4.1.2 caps it at 10 minutes; the code is
 * redeemed by the client right after the redirect, so 60 seconds (as node-oidc-provider and
 * Keycloak use) leaves ample room while shrinking the window for a leaked code.
 */
export const authorizationCode = Duration.seconds(60)

/**
 * a pending authorize request waiting for the user to come back from the upstream IdP.
 * The user may have to type a password or pass MFA there, so this is longer than a code.
 */
export const pendingLogin = Duration.minutes(10)

/**
 * the browser session of a confidential web client's user. A working day: long enough to
 * spare repeated upstream logins, short enough that a forgotten browser does not stay signed in.
 */
export const browserSession = Duration.hours(8)

/** how long a used or expired code is remembered to recognise its replay. */
export const replayEvidence = Duration.days(1)
