/**
 * Every secret we hand out carries a short prefix naming its kind. Secret scanners can then
 * recognise a leaked latchkey token, and /revoke and /introspect know which table to search
 * without trusting `token_type_hint`.
 */
export type TokenKind =
  | "access"
  | "refresh"
  | "code"
  | "client_secret"
  | "state"
  | "consent"
  | "session"
  /** The auth service's mailed links (confirmation, recovery, magic link, …). */
  | "verification"

export const prefix: Record<TokenKind, string> = {
  access: "lka_",
  refresh: "lkr_",
  code: "lkc_",
  client_secret: "lks_",
  state: "lkt_",
  consent: "lkg_",
  session: "lkw_",
  verification: "lkv_"
}

export const kindOf = (token: string): TokenKind | undefined => {
  for (const [kind, p] of Object.entries(prefix)) {
    if (token.startsWith(p)) return isKind(kind) ? kind : undefined
  }
  return undefined
}

const isKind = (value: string): value is TokenKind => Object.hasOwn(prefix, value)
