/**
 * Firebase Authentication's password hashes, as Supabase Auth imports them: a user moved from
 * Firebase keeps their password when the admin API is given `$fbscrypt$v=1,n=…,r=…,p=…,ss=…,
 * sk=…$<salt>$<hash>` (the project's hash parameters, the user's salt and hash, all base64).
 * Firebase's scheme: scrypt of the password over the salt followed by the salt separator (N = 2^n,
 * 32 bytes), used as an AES-256-CTR key (a zero counter) to encrypt the project's signer key;
 * the result is the stored hash. The computation runs on a hashing thread (HashingThread.mjs);
 * this module reads the string.
 */

/** What a hashing thread needs to check a password against one Firebase hash. */
export interface FirebaseHash {
  /** scrypt's cost, 2^n. */
  readonly cost: number
  readonly blockSize: number
  readonly parallelism: number
  /** The user's salt followed by the project's salt separator. */
  readonly salt: Uint8Array
  readonly signerKey: Uint8Array
  readonly expected: Uint8Array
}

/**
 * Bounds on what one check may cost: scrypt takes 128·N·r bytes, held at most to the 1 GiB
 * Supabase Auth allows an imported argon2 hash, and as many passes as its 16 threads. Firebase's
 * own parameters (n=14, r=8, p=1: 16 MiB) are far within them; a hash beyond them is refused at
 * import, so that no sign-in can be made to take the machine's memory.
 */
const maxMemoryBytes = 1024 * 1024 * 1024
const maxParallelism = 16

/** Padded standard base64, strictly: Go's StdEncoding, which Supabase Auth decodes these with. */
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const format =
  /^\$fbscrypt\$v=([0-9]+),n=([0-9]+),r=([0-9]+),p=([0-9]+)(?:,ss=([^,]+))?(?:,sk=([^$]+))?\$([^$]+)\$(.+)$/

const bytesOf = (text: string | undefined): Uint8Array | undefined =>
  text === undefined ? new Uint8Array() : base64.test(text) ? Buffer.from(text, "base64") : undefined

/** Whether a stored hash says it is Firebase's, readable or not. */
export const isFirebaseHash = (stored: string): boolean => stored.startsWith("$fbscrypt$")

/** The hash's parameters, or undefined when it is malformed or beyond the bounds above. */
export const parse = (stored: string): FirebaseHash | undefined => {
  const match = format.exec(stored)
  if (match === null) return undefined
  const [, version, n, r, p, separator, signer, userSalt, hash] = match
  if (version !== "1") return undefined
  const power = Number(n)
  const blockSize = Number(r)
  const parallelism = Number(p)
  if (!(power >= 1 && blockSize >= 1 && parallelism >= 1 && parallelism <= maxParallelism)) return undefined
  if (power > 30 || 128 * 2 ** power * blockSize > maxMemoryBytes) return undefined
  const [saltSeparator, signerKey, salt, expected] = [separator, signer, userSalt, hash].map(bytesOf)
  if (saltSeparator === undefined || signerKey === undefined || salt === undefined || expected === undefined)
    return undefined
  return {
    cost: 2 ** power,
    blockSize,
    parallelism,
    salt: Buffer.concat([salt, saltSeparator]),
    signerKey,
    expected
  }
}
