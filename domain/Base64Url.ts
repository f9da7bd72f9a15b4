/** RFC 4648 §5 base64url without padding, as PKCE (RFC 7636 Appendix A) requires. */
export const encode = (bytes: Uint8Array): string => {
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}
