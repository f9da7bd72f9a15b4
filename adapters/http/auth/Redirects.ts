/** The redirects that end a browser flow (GET /verify, /callback), as Supabase Auth writes them. */

/** Supabase Auth's `error` of a redirect, by the status the same error has as a JSON answer. */
export const oauthError = (status: number): string | undefined =>
  ({
    400: "invalid_request",
    401: "unauthorized_client",
    403: "access_denied",
    500: "server_error",
    503: "temporarily_unavailable"
  })[status]

/** Parameters form-encoded with their keys sorted, as Go encodes `url.Values`. */
export const encode = (params: Readonly<Record<string, string>>) =>
  new URLSearchParams(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString()

/** `url` with `params` as its fragment. */
export const withFragment = (url: string, params: Readonly<Record<string, string>>) =>
  `${url.split("#")[0]}#${encode(params)}`
