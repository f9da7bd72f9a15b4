import { isIP } from "node:net"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Destination from "../adapters/outbound/Destination.js"
import type * as PrivateAddresses from "../adapters/outbound/PrivateAddresses.js"

/**
 * What a service says at start about where its outbound calls may go: one line with the private
 * addresses its operator allows (`OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`,
 * `AUTHSVC_OUTBOUND_ALLOWED_PRIVATE_ADDRESSES`), and a warning for each configured URL (an
 * issuer, a provider's or a template's) that the outbound guard would refuse, naming the
 * variable to set. Without them the first sign of an identity provider inside the network is a
 * failed login.
 */

/** What `latchkey dev` (`npm start`) allows when the variable is unset: this machine's loopback. */
export const developmentDefault = "127.0.0.0/8,::1"

/** A URL the configuration names, by the variable that names it. */
export interface Configured {
  readonly variable: string
  readonly url: string
}

export interface Reach {
  /** `auth` or `oauth`: the start of each line, as the server's own lines have it. */
  readonly service: string
  /** The variable the list is read from. */
  readonly variable: string
  readonly allowed: PrivateAddresses.AllowList
  /** Where the list came from when not from its variable (`latchkey dev`'s default). */
  readonly source?: string | undefined
}

/** The one line that lists the private addresses outbound calls may reach. */
export const summary = (reach: Reach): string => {
  const from = reach.source === undefined ? reach.variable : `${reach.variable} unset: ${reach.source}`
  return reach.allowed.ranges.length === 0
    ? `${reach.service}: outbound calls reach public addresses only (${reach.variable} lists no private address)`
    : `${reach.service}: outbound calls may reach these private addresses besides public ones: ${reach.allowed.ranges.join(", ")} (${from})`
}

/** How long a start-up resolution may take: the check must not hold anything up. */
const resolutionTimeout = Duration.seconds(5)

/**
 * The warning for `configured`, none when the guard would let it through (or its host does not
 * resolve now: the first call will say why, and names in a cluster come and go).
 */
export const refusalOf = (
  reach: Reach,
  configured: Configured,
  resolve: Destination.Resolver = Destination.systemResolver
): Effect.Effect<Option.Option<string>> =>
  Effect.gen(function* () {
    const url = URL.canParse(configured.url) ? new URL(configured.url) : undefined
    if (url === undefined) return Option.none()
    const prefix = `${reach.service}: ${configured.variable}`
    // Plain http with no list is refused for want of a listed address: judged by its addresses
    // below, so that the warning says which ones to list.
    const screened = Option.orElse(
      url.protocol === "http:" ? Option.none() : Destination.schemeRefusal(url, reach.allowed),
      () => Destination.hostRefusal(url)
    )
    if (Option.isSome(screened)) {
      return Option.some(`${prefix}: the outbound guard will refuse it: ${screened.value}`)
    }
    const hostname = Destination.hostnameOf(url)
    const addresses =
      isIP(hostname) === 0
        ? yield* resolve(hostname).pipe(
            Effect.timeoutOption(resolutionTimeout),
            Effect.orElseSucceed(() => Option.none<ReadonlyArray<string>>()),
            Effect.map(Option.getOrElse((): ReadonlyArray<string> => []))
          )
        : [hostname]
    const refusals = addresses.flatMap((address) =>
      Option.toArray(Destination.refusalOf(url.protocol, address, reach.allowed))
    )
    const [first] = refusals
    if (first === undefined) return Option.none()
    if (refusals.every((refusal) => refusal.listable)) {
      const listed = refusals.map((refusal) => `${refusal.address} (${refusal.range})`).join(", ")
      return Option.some(
        `${prefix}: ${url.hostname} resolves to ${listed}, which the outbound guard refuses: add ${
          refusals.length === 1 ? "it" : "them"
        } to ${reach.variable} to let the service reach ${url.hostname}`
      )
    }
    return Option.some(
      `${prefix}: the outbound guard will refuse it: ${Destination.refusalMessage(url, first, reach.allowed)}`
    )
  })

/**
 * Logs the summary, then checks every configured URL at once in the background: resolving a
 * name must not delay the start, and each refused one gets its warning when its answer is in.
 */
export const announce = (reach: Reach, configured: ReadonlyArray<Configured>) =>
  Effect.gen(function* () {
    yield* Effect.logInfo(summary(reach))
    yield* Effect.forkScoped(
      Effect.forEach(
        configured,
        (entry) =>
          Effect.flatMap(
            refusalOf(reach, entry),
            Option.match({ onNone: () => Effect.void, onSome: (warning) => Effect.logWarning(warning) })
          ),
        { concurrency: "unbounded", discard: true }
      )
    )
  })
