/**
 * Numbers as Supabase Auth's configuration loader reads them: envconfig hands an `int` setting to
 * Go's `strconv.ParseInt(value, 0, 64)` and a `float64` one to `strconv.ParseFloat(value, 64)`.
 * Both take more than plain decimals (`0x10`, `0o17`, `0b101`, `1_000`, `+5`; `1e3`, `0x1p4`),
 * and a configuration written for Supabase Auth may use any of them, so they are read here with
 * the same meaning — including the one that surprises: an integer with a leading `0` is octal
 * (`010` is 8), which ConfigWarnings says at start. A value Go refuses is refused here too.
 */

/** A Go integer's value, and whether a bare leading `0` made it octal. */
export interface GoInteger {
  readonly value: number
  readonly octal: boolean
}

const digitsOf: Readonly<Record<number, RegExp>> = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/
}

/**
 * Go's rule for `_` in a number (strconv's underscoreOK): only between two digits, or between a
 * base prefix (`0x`, `0o`, `0b`) and a digit.
 */
const underscoresFit = (text: string): boolean => {
  const unsigned = text.replace(/^[+-]/, "")
  const afterPrefix = /^0[xXoObB]/.test(unsigned) ? `0${unsigned.slice(2)}` : unsigned
  return !/(^_|_$|__|[^0-9a-fA-F]_|_[^0-9a-fA-F])/.test(afterPrefix)
}

const prefixedBase: Readonly<Record<string, number>> = { x: 16, o: 8, b: 2 }

/** `strconv.ParseInt(text, 0, 64)`, within JavaScript's safe integers; undefined where Go refuses. */
export const integer = (text: string): GoInteger | undefined => {
  if (text.includes("_") && !underscoresFit(text)) return undefined
  const sign = text.startsWith("-") ? -1 : 1
  const unsigned = text.replace(/^[+-]/, "").replaceAll("_", "")
  const prefixed = /^0([xob])(.*)$/i.exec(unsigned)
  const octal = prefixed === null && unsigned.length > 1 && unsigned.startsWith("0")
  const base = prefixed?.[1] !== undefined ? prefixedBase[prefixed[1].toLowerCase()] : octal ? 8 : 10
  const digits = prefixed !== null ? (prefixed[2] ?? "") : octal ? unsigned.slice(1) : unsigned
  if (base === undefined || digitsOf[base]?.test(digits) !== true) return undefined
  const magnitude = Number.parseInt(digits, base)
  return Number.isSafeInteger(magnitude) ? { value: sign * magnitude, octal } : undefined
}

const decimalFloat = /^[+-]?(?:[0-9_]+(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?$/
const hexFloat = /^[+-]?0[xX](?:[0-9a-fA-F_]+(?:\.[0-9a-fA-F_]*)?|\.[0-9a-fA-F_]+)[pP][+-]?[0-9_]+$/

/**
 * `strconv.ParseFloat(text, 64)` for finite values: decimals with an optional exponent (`1e3`),
 * hexadecimal floats (`0x1p4`), Go's underscores. Go also takes `inf` and `NaN`, which no count
 * or duration here can mean: undefined, as for anything Go refuses or that overflows.
 */
export const float = (text: string): number | undefined => {
  const hex = /^[+-]?0[xX]/.test(text)
  const mantissa = text.replace(hex ? /[pP].*$/ : /[eE].*$/, "")
  const exponentDigits = text.slice(mantissa.length).replace(/^[eEpP][+-]?/, "")
  if (text.includes("_") && !(underscoresFit(mantissa) && underscoresFit(exponentDigits))) return undefined
  const plain = text.replaceAll("_", "")
  if (decimalFloat.test(text)) {
    const value = Number(plain)
    return Number.isFinite(value) ? value : undefined
  }
  if (!hexFloat.test(text)) return undefined
  const match = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(plain)
  if (match === null) return undefined
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = match
  const significand = Number.parseInt(`${whole}${fraction}` || "0", 16)
  const value = significand * 2 ** (Number(exponent) - 4 * fraction.length)
  return Number.isFinite(value) ? (sign === "-" ? -value : value) : undefined
}
