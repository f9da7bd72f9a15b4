import type * as Console from "effect/Console"

/**
 * Colour codes only where they show as colours: @effect/cli writes them into its messages
 * wherever they go, and a pipe, a file or a log collector then holds `[0;1m`. Colours are
 * kept on a terminal unless `NO_COLOR` is set to anything but the empty string (no-color.org).
 */

/** Whether output to a stream with `isTTY` may be coloured, with `NO_COLOR` as given. */
export const colours = (isTTY: boolean | undefined, noColor: string | undefined): boolean =>
  isTTY === true && (noColor === undefined || noColor === "")

/** An SGR sequence (colour, weight, reset), the only kind @effect/cli writes. */
const sgr = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/** `text` without its colour codes. */
export const strip = (text: string): string => text.replace(sgr, "")

const plain = (parts: ReadonlyArray<unknown>) =>
  parts.map((part) => (typeof part === "string" ? strip(part) : part))

/**
 * `base`, writing without colour codes to standard output unless `stdout` may be coloured, and
 * likewise to standard error.
 */
export const make = (base: Console.Console, may: { readonly stdout: boolean; readonly stderr: boolean }) => {
  const console: Console.Console = {
    ...base,
    log: (...parts) => base.log(...(may.stdout ? parts : plain(parts))),
    info: (...parts) => base.info(...(may.stdout ? parts : plain(parts))),
    error: (...parts) => base.error(...(may.stderr ? parts : plain(parts))),
    warn: (...parts) => base.warn(...(may.stderr ? parts : plain(parts)))
  }
  return console
}
