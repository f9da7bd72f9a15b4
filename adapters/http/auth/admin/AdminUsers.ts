import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AuthError from "../../../../application/auth/AuthError.js"
import type { AdminUserRequest } from "../../../../application/auth/admin/AdminUserRequest.js"
import { createUser } from "../../../../application/auth/admin/CreateUser.js"
import { deleteUser } from "../../../../application/auth/admin/DeleteUser.js"
import * as FindUser from "../../../../application/auth/admin/FindUser.js"
import * as ListUsers from "../../../../application/auth/admin/ListUsers.js"
import { updateUser } from "../../../../application/auth/admin/UpdateUser.js"
import type { UserId } from "../../../../domain/Ids.js"
import type { HttpRequest } from "../../HttpMessage.js"
import * as HttpMessage from "../../HttpMessage.js"
import * as JsonRequest from "../JsonRequest.js"
import { field } from "../JsonRequest.js"
import * as UserJson from "../UserJson.js"
import * as AdminUserBody from "./AdminUserBody.js"

/*
 * The admin API's users, Supabase Auth's `api/admin.go` (`adminUsers`, `adminUserGet`,
 * `adminUserCreate`, `adminUserUpdate`, `adminUserDelete`): every endpoint for an
 * administrator's bearer (Routes.ts), the user of a path named by its `{user_id}`.
 */

/** Go's `strconv.ParseUint(s, 10, 64)`: decimal digits only, no sign, below 2^64. */
const unsigned = (name: string, raw: string | null, fallback: number) => {
  if (raw === null || raw === "") return Effect.succeed(fallback)
  if (!/^[0-9]+$/.test(raw) || BigInt(raw) >= 2n ** 64n) {
    return Effect.fail(
      AuthError.validationFailed(
        `Bad Pagination Parameters: strconv.ParseUint: parsing ${JSON.stringify(raw)}: ${/^[0-9]+$/.test(raw) ? "value out of range" : "invalid syntax"}`
      )
    )
  }
  // Larger pages than this are a mistake, not a request; pages past the end are simply empty.
  return Effect.succeed(Math.min(Number(raw), name === "per_page" ? 1000 : Number.MAX_SAFE_INTEGER))
}

/** A `sort` value refused, in the words of Supabase Auth's `sort` (`api/sorting.go`). */
const badSort = (reason: string) => Effect.fail(AuthError.validationFailed(`Bad Sort Parameters: ${reason}`))

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
      if (field !== "created_at") return yield* badSort(`bad field for sort '${field}'`)
      const direction = space < 0 ? "DESC" : value.slice(space + 1)
      const upper = direction.toUpperCase()
      if (upper !== "ASC" && upper !== "DESC") {
        return yield* badSort(`bad direction for sort '${direction}', only 'asc' and 'desc' allowed`)
      }
      order ??= upper === "ASC" ? "asc" : "desc"
    }
    return order ?? "desc"
  })

/** The query of GET /admin/users, read in Supabase Auth's order: `sort`, `filter`, then the paging. */
export const listQuery = (request: HttpRequest) =>
  Effect.gen(function* () {
    const query = new URLSearchParams(request.query)
    const order = yield* orderOf(query.getAll("sort"))
    const filter = query.get("filter") ?? ""
    const page = Math.max(1, yield* unsigned("page", query.get("page"), 1))
    const perPage = yield* unsigned("per_page", query.get("per_page"), ListUsers.defaultPerPage)
    return { query, order, filter, page, perPage }
  })

/**
 * GET /admin/users?page&per_page&sort&filter — supabase-js `admin.listUsers`: `{users, aud}`
 * with Supabase Auth's `X-Total-Count` and `Link` (`next`, `last`) headers. Page 0 is the
 * first page, as Supabase Auth's offset arithmetic makes it; `per_page=0` lists nobody.
 */
export const list = (
  { query, order, filter, page, perPage }: Effect.Effect.Success<ReturnType<typeof listQuery>>,
  _: unknown,
  request: HttpRequest
) =>
  Effect.gen(function* () {
    const listed =
      perPage === 0
        ? { users: [], total: 0, aud: "" }
        : yield* ListUsers.listUsers({ page, perPage, order, filter })
    const totalPages = perPage === 0 ? 0 : Math.ceil(listed.total / perPage)
    const link = (target: number) => {
      const next = new URLSearchParams(query)
      next.set("page", String(target))
      return `<${request.path}?${next.toString()}>`
    }
    const links = [
      ...(totalPages > page ? [`${link(page + 1)}; rel="next"`] : []),
      `${link(totalPages)}; rel="last"`
    ]
    return HttpMessage.json(
      {
        users: listed.users.map(({ user, identities }) => UserJson.encode(user, identities)),
        aud: listed.aud
      },
      200,
      { "x-total-count": String(listed.total), link: links.join(", ") }
    )
  })

/** The `{user_id}` of the path: a UUID, else 404 `validation_failed`. */
export const userId = (request: HttpRequest) => FindUser.parseId(request.params.user_id ?? "")

/** GET /admin/users/{user_id} — supabase-js `admin.getUserById`. */
export const get = (id: UserId) =>
  Effect.map(FindUser.findUser(id), (found) =>
    HttpMessage.json(UserJson.encode(found.user, found.identities))
  )

/** POST /admin/users — supabase-js `admin.createUser`. */
export const create = (body: AdminUserRequest) =>
  Effect.map(createUser(body), (created) =>
    HttpMessage.json(UserJson.encode(created.user, created.identities))
  )

/** The user of the path, then the body: a bad id is answered before the body is read. */
export const idAndBody = (request: HttpRequest) =>
  Effect.flatMap(userId(request), (id) => Effect.map(AdminUserBody.decode(request), (body) => ({ id, body })))

/** PUT /admin/users/{user_id} — supabase-js `admin.updateUserById`. */
export const update = (input: { readonly id: UserId; readonly body: AdminUserRequest }) =>
  Effect.map(updateUser(input.id, input.body), (updated) =>
    HttpMessage.json(UserJson.encode(updated.user, updated.identities))
  )

const DeleteBody = Schema.Struct({ should_soft_delete: field(Schema.Boolean) })
const decodeDelete = JsonRequest.decode(DeleteBody)

/** The user of the path, then `{should_soft_delete}`. */
export const idAndDeleteBody = (request: HttpRequest) =>
  Effect.flatMap(userId(request), (id) =>
    Effect.map(decodeDelete(request), (body) => ({ id, soft: body.should_soft_delete ?? false }))
  )

/** DELETE /admin/users/{user_id} — supabase-js `admin.deleteUser(id, shouldSoftDelete)`. */
export const remove = (input: { readonly id: UserId; readonly soft: boolean }) =>
  Effect.as(deleteUser(input.id, input.soft), HttpMessage.json({}))
