import * as fc from "fast-check"

/** RFC 3986 percent-encoding of the UTF-8 bytes (a lone surrogate becomes U+FFFD). */
export const percentEncoded = (text: string) =>
  [...Buffer.from(text, "utf8")]
    .map((byte) => {
      const char = String.fromCharCode(byte)
      return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
    })
    .join("")

/** `arbitrary` one time in `oneIn`, else nothing. */
export const sometimes = <A>(arbitrary: fc.Arbitrary<A>, oneIn: number) =>
  fc.oneof(
    { weight: oneIn - 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: arbitrary.map((value): A | undefined => value) }
  )

/** JSON a parser must refuse or read with care: unfinished, a bare scalar, a number past a double, a BOM. */
export const brokenJson = ["{", "[", '"', "null", "1e999999", "\ufeff{}"] as const

/** Headers as a request sends them: those given, none of the absent ones. */
export const withoutUndefined = <A>(headers: Readonly<Record<string, A | undefined>>): Record<string, A> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(
      ([name, value]): Array<[string, A]> => (value === undefined ? [] : [[name, value]])
    )
  )
