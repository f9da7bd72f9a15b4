import * as Effect from "effect/Effect"
import * as ListUsers from "../../../../application/auth/admin/ListUsers.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as AuthJson from "../AuthJson.js"
import * as Refusal from "../Refusal.js"

/** Go's `strconv.ParseUint(s, 10, 64)`: decimal digits only, no sign, below 2^64. */
const unsigned = (name: string, raw: string | null, fallback: number) => {
  if (raw === null || raw === "") return Effect.succeed(fallback)
  if (!/^[0-9]+$/.test(raw) || BigInt(raw) >= 2n ** 64n) {
    return Effect.fail(new Refusal.PaginationInvalid({ value: raw, outOfRange: /^[0-9]+$/.test(raw) }))
  }
  // Larger pages than this are a mistake, not a request; pages past the end are simply empty.
  return Effect.succeed(Math.min(Number(raw), name === "per_page" ? 1000 : Number.MAX_SAFE_INTEGER))
}

/** A `sort` value refused, as Supabase Auth's `sort` (`api/sorting.go`) refuses it. */
const badSort = (part: Refusal.SortInvalid["part"], value: string) =>
  Effect.fail(new Refusal.SortInvalid({ part, value }))

/**
 * Every `sort` of the query, as Supabase Auth reads them: `<field>` or `<field> <direction>`
 * (split at the first space), the field `created_at` (the only one it allows), the direction
 * `asc` or `desc` in any case, `desc` when none. The first decides the order; any more name
 * the same column again and change nothing. No `sort`: newest first.
 */
const orderOf = (values: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    let order: "asc" | "desc" | undefined
    for (const value of values) {
      const space = value.indexOf(" ")
      const field = space < 0 ? value : value.slice(0, space)
      if (field !== "created_at") return yield* badSort("field", field)
      const direction = space < 0 ? "DESC" : value.slice(space + 1)
      const upper = direction.toUpperCase()
      if (upper !== "ASC" && upper !== "DESC") {
        return yield* badSort("direction", direction)
      }
      order ??= upper === "ASC" ? "asc" : "desc"
    }
    return order ?? "desc"
  })

/** What GET /admin/users asks for; `params` for the `Link` header's pages. */
export interface Query {
  readonly params: URLSearchParams
  readonly order: "asc" | "desc"
  readonly filter: string
  readonly page: number
  readonly perPage: number
}

/** The query of GET /admin/users, read in Supabase Auth's order: `sort`, `filter`, then the paging. */
export const query = (request: HttpRequest) =>
  Effect.gen(function* () {
    const params = new URLSearchParams(request.query)
    const order = yield* orderOf(params.getAll("sort"))
    const filter = params.get("filter") ?? ""
    const page = Math.max(1, yield* unsigned("page", params.get("page"), 1))
    const perPage = yield* unsigned("per_page", params.get("per_page"), ListUsers.defaultPerPage)
    return { params, order, filter, page, perPage } satisfies Query
  })

/**
 * GET /admin/users?page&per_page&sort&filter — supabase-js `admin.listUsers`: `{users, aud}`
 * with Supabase Auth's `X-Total-Count` and `Link` (`next`, `last`) headers. Page 0 is the
 * first page, as Supabase Auth's offset arithmetic makes it; `per_page=0` lists nobody.
 */
export const handle = ({ params, order, filter, page, perPage }: Query, _: unknown, request: HttpRequest) =>
  Effect.gen(function* () {
    const listed =
      perPage === 0
        ? { users: [], total: 0, aud: "" }
        : yield* ListUsers.listUsers({ page, perPage, order, filter })
    const totalPages = perPage === 0 ? 0 : Math.ceil(listed.total / perPage)
    const link = (target: number) => {
      const next = new URLSearchParams(params)
      next.set("page", String(target))
      // By name, as Go's `url.Values.Encode` writes Supabase Auth's links: supabase-js reads the
      // page from the first parameter's value, so `?per_page=10` must not come before it.
      next.sort()
      return `<${request.path}?${next.toString()}>`
    }
    const links = [
      ...(totalPages > page ? [`${link(page + 1)}; rel="next"`] : []),
      `${link(totalPages)}; rel="last"`
    ]
    return HttpMessage.json(
      {
        users: listed.users.map(({ user, identities, factors }) => AuthJson.user(user, identities, factors)),
        aud: listed.aud
      },
      200,
      { "x-total-count": String(listed.total), link: links.join(", ") }
    )
  })
