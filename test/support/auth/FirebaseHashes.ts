/**
 * A Firebase Authentication password hash in the form Supabase Auth imports
 * (`$fbscrypt$v=1,n=…,r=…,p=…,ss=…,sk=…$<salt>$<hash>`), made outside this code base by Python's
 * hashlib.scrypt and `openssl enc -aes-256-ctr` for `password`: Firebase's own parameters (n=14,
 * r=8, p=1, salt separator 0x07), a salt of ten bytes and a signer key of the bytes 1 to 64.
 */
export const password = "import me from Firebase"
export const signerKey =
  "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/QA=="
export const salt = "XxyaB+K004gQqg=="
export const digest =
  "oN/YKWMdtiWDs5CL5QPXpZcunf+8iW6yx8WL1JCDaZKTwWv50GCoHUOYxYrO0Zx8oRMG3ghD6zuhBo50zcw+wQ=="

/** A hash of these parts with other `parameters` (`n=…,r=…,p=…,ss=…,sk=…`), salt or digest. */
export const hash = (parameters: string, saltPart = salt, digestPart = digest) =>
  `$fbscrypt$v=1,${parameters}$${saltPart}$${digestPart}`

/** The hash of `password`. */
export const vector = hash(`n=14,r=8,p=1,ss=Bw==,sk=${signerKey}`)
