/**
 * The URL a browser is sent to on the client's side: the registered redirect URI with our
 * parameters added to its query (RFC 6749 §4.1.2: keep the URI's own query, never a fragment).
 */
export const build = (redirectUri: string, params: Readonly<Record<string, string | undefined>>): string => {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value)
  }
  return url.toString()
}
