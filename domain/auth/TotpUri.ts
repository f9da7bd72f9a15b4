import * as Totp from "./Totp.js"

const hex = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`

/** Go's escaping of a URL path (`url.URL.EscapedPath`): `$&+,/:;=@` stay, `!'()*` do not. */
const pathEscape = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, hex)
    .replace(/%(24|26|2B|2C|2F|3A|3B|3D|40)/g, (escaped) => decodeURIComponent(escaped))

/** Go's `url.QueryEscape`: everything but letters, digits and `-_.~` escaped, a space as `+`. */
const queryEscape = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, hex)
    .replace(/%20/g, "+")

/**
 * What a QR code holds at most at error correction H, as the enrolment draws it: 1,273 bytes in
 * byte mode (version 40, ISO/IEC 18004 table 7). The URI is ASCII (its label and issuer are
 * percent-encoded), so its length is its size in bytes.
 */
export const qrCodeCapacity = 1_273

/** Whether the enrolment's QR code can hold `uri`: an issuer of a thousand characters makes one that cannot. */
export const fitsQrCode = (uri: string): boolean => uri.length <= qrCodeCapacity

/**
 * The `otpauth://` URI of a TOTP factor, byte for byte as Supabase Auth's `totp.Generate`
 * (pquerna/otp) writes it: the label `issuer:account` as a URL path, then the parameters in
 * Go's sorted query order. `otpauth`'s own URI escapes `@` in the label, where Go leaves it.
 */
export const uri = (issuer: string, account: string, secret: string): string =>
  `otpauth://totp/${pathEscape(Totp.label(issuer, account))}` +
  `?algorithm=${Totp.parameters.algorithm}&digits=${Totp.parameters.digits}` +
  `&issuer=${queryEscape(issuer)}&period=${Totp.parameters.periodSeconds}&secret=${secret}`
