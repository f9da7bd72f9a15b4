import { describe, expect, it } from "@effect/vitest"
import * as GoNumbers from "../../../bootstrap/auth/GoNumbers.js"

// Each row: a value, then what Go 1.19's strconv.ParseInt(value, 0, 64) and
// strconv.ParseFloat(value, 64) made of it (undefined: Go returned an error), printed by a Go
// program over these inputs. Two rows differ from Go on purpose: `inf` and `NaN`, which Go's
// ParseFloat takes, are refused (GoNumbers.float says why).
const table: ReadonlyArray<readonly [string, number | undefined, number | undefined]> = [
  ["0", 0, 0],
  ["8", 8, 8],
  ["010", 8, 10],
  ["0_10", 8, 10],
  ["08", undefined, 8],
  ["0x10", 16, undefined],
  ["0X1f", 31, undefined],
  ["0x_1F", 31, undefined],
  ["0o17", 15, undefined],
  ["0O17", 15, undefined],
  ["0b101", 5, undefined],
  ["0B1_01", 5, undefined],
  ["1_000", 1000, 1000],
  ["1__000", undefined, undefined],
  ["_1", undefined, undefined],
  ["1_", undefined, undefined],
  ["+5", 5, 5],
  ["-5", -5, -5],
  ["+0x10", 16, undefined],
  ["-010", -8, -10],
  ["0x", undefined, undefined],
  ["0b", undefined, undefined],
  ["0o", undefined, undefined],
  ["00", 0, 0],
  ["007", 7, 7],
  ["1e3", undefined, 1000],
  ["1.5", undefined, 1.5],
  [" 5", undefined, undefined],
  ["", undefined, undefined],
  ["0_x10", undefined, undefined],
  ["+_1", undefined, undefined],
  ["0x1p4", undefined, 16],
  ["inf", undefined, undefined],
  ["NaN", undefined, undefined],
  [".5", undefined, 0.5],
  ["5.", undefined, 5],
  ["1E3", undefined, 1000],
  ["1e+3", undefined, 1000],
  ["1e-3", undefined, 0.001],
  ["1_000.5", undefined, 1000.5],
  ["1_000e1", undefined, 10000],
  ["0x1.8p1", undefined, 3],
  ["0x1p-2", undefined, 0.25],
  ["0x1e_2p1", undefined, 964],
  ["1e", undefined, undefined],
  ["e3", undefined, undefined],
  ["1e1_0", undefined, 1e10],
  ["1e1__0", undefined, undefined],
  ["1e_10", undefined, undefined],
  ["1_e3", undefined, undefined],
  ["1._5", undefined, undefined],
  ["01.5", undefined, 1.5],
  ["010.0", undefined, 10],
  ["0x10.0", undefined, undefined],
  ["1.5e400", undefined, undefined],
  ["1e-400", undefined, 0],
  ["9007199254740991", 9007199254740991, 9007199254740991],
  ["0x1F_FFFF_FFFF_FFFF", 9007199254740991, undefined],
  ["ten", undefined, undefined]
]

describe("numbers as Supabase Auth's loader reads them", () => {
  it.each(table)("reads %j as Go's ParseInt (%s) and ParseFloat (%s) do", (text, integer, float) => {
    expect(GoNumbers.integer(text)?.value).toBe(integer)
    expect(GoNumbers.float(text)).toBe(float)
  })

  it("tells an integer made octal by its leading 0 from the other forms", () => {
    expect(GoNumbers.integer("010")).toEqual({ value: 8, octal: true })
    expect(GoNumbers.integer("-0_17")).toEqual({ value: -15, octal: true })
    expect(GoNumbers.integer("0o10")).toEqual({ value: 8, octal: false })
    expect(GoNumbers.integer("0")).toEqual({ value: 0, octal: false })
    expect(GoNumbers.integer("10")).toEqual({ value: 10, octal: false })
  })

  it("refuses what JavaScript cannot hold exactly", () => {
    expect(GoNumbers.integer("9007199254740992")).toBeUndefined()
    expect(GoNumbers.integer("0x7fffffffffffffff")).toBeUndefined()
  })
})
