import * as Either from "effect/Either"
import * as PrivateAddresses from "../../../adapters/outbound/PrivateAddresses.js"

/**
 * The private addresses an adapter under test may reach, as the configuration hands them over
 * (`OUTBOUND_ALLOWED_PRIVATE_ADDRESSES` parsed): the tests' local servers listen on loopback,
 * which the outbound guard refuses unless the operator's list names it.
 */
export const allowing = (...entries: ReadonlyArray<string>): PrivateAddresses.AllowList =>
  Either.getOrThrowWith(
    PrivateAddresses.parse(entries, "OUTBOUND_ALLOWED_PRIVATE_ADDRESSES"),
    (message) => new Error(message)
  )

/** 127.0.0.1 alone, where the tests' servers listen: 127.0.0.2 and the rest of 127/8 stay refused. */
export const localhost = allowing("127.0.0.1")
