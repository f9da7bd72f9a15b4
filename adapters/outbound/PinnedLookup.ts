import type { LookupAddress } from "node:dns"
import type { LookupFunction } from "node:net"

/**
 * The `lookup` handed to a connection so that it goes to the addresses `Destination.check`
 * approved and nowhere else: whatever name the socket asks for, it gets those addresses, and
 * DNS is not asked again. Node asks for a list (`all`) when it races address families
 * (autoSelectFamily), for one address otherwise, and for one family when told to.
 */
export const of =
  (addresses: ReadonlyArray<LookupAddress>): LookupFunction =>
  (_hostname, options, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0)
    const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family)
    const first = usable[0]
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no checked IPv${family} address`)
      error.code = "ENOTFOUND"
      return callback(error, [])
    }
    if (options.all === true) callback(null, [...usable])
    else callback(null, first.address, first.family)
  }
