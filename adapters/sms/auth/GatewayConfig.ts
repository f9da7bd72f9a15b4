import * as Config from "effect/Config"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * How each gateway reads its credentials from the auth service's variables. Supabase Auth starts
 * with a gateway whose credentials are empty and fails each text; so does this service, naming
 * the empty variables once at start. So a gateway's settings read as the settings, or as the
 * names of every variable they need that is empty, never as a failed start.
 */

/** A gateway's settings, or the variables it needs that are empty: all of them, in order. */
export type Reading<S> = Either.Either<S, ReadonlyArray<string>>

/** The value of a variable it needs, or its name when it is empty. */
export type Needed<A> = Either.Either<A, string>

const trimmed = (value: string): Option.Option<string> => {
  const text = value.trim()
  return text === "" ? Option.none() : Option.some(text)
}

/** A setting that may be left out; none when unset or only spaces. */
export const optionalText = (name: string): Config.Config<Option.Option<string>> =>
  Config.option(Config.string(name)).pipe(Config.map(Option.flatMap(trimmed)))

/** A setting the gateway needs, trimmed; its name when unset or only spaces. */
export const text = (name: string): Config.Config<Needed<string>> =>
  optionalText(name).pipe(Config.map((value) => Either.fromOption(value, () => name)))

/** A credential the gateway needs, kept redacted; its name when unset or only spaces. */
export const secret = (name: string): Config.Config<Needed<Redacted.Redacted>> =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== "")),
    Config.map((value) => Either.fromOption(value, () => name))
  )

/**
 * The names of the `needed` settings that are empty: all of them, in order, so that one start
 * names them all rather than the first alone (`Either.all` stops at the first).
 */
const emptyOf = (needed: Readonly<Record<string, Needed<unknown>>>): ReadonlyArray<string> =>
  Object.values(needed).flatMap((field) => (Either.isLeft(field) ? [field.left] : []))

/**
 * Settings made of variables the gateway needs, each a `text` or a `secret`: the settings when
 * none is empty, else the names of every empty one (`emptyOf`).
 *
 * The body reads the fields as a plain record: TypeScript does not carry a generic record
 * through `Config.all` and `Either.all`, so the first signature states what the body keeps,
 * each key's setting being the value its field read.
 */
export function all<A extends Readonly<Record<string, unknown>>>(
  fields: {
    readonly [K in keyof A]: Config.Config<Needed<A[K]>>
  }
): Config.Config<Reading<A>>
export function all(
  fields: Readonly<Record<string, Config.Config<Needed<unknown>>>>
): Config.Config<Reading<Readonly<Record<string, unknown>>>> {
  return Config.all(fields).pipe(
    Config.map((needed) => Either.mapLeft(Either.all(needed), () => emptyOf(needed)))
  )
}
