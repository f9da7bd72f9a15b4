#!/usr/bin/env node
/**
 * The `latchkey` executable. `latchkey serve`, `latchkey dev`, `latchkey oauth serve` and
 * `latchkey auth serve` start their services straight away; every other command goes through the
 * command-line parser, which a serving process never loads (its modules weigh several MiB of a
 * small container's memory).
 */
const args = process.argv.slice(2)
const which =
  args.length === 1 && (args[0] === "serve" || args[0] === "dev")
    ? args[0] === "serve"
      ? "all"
      : "dev"
    : args.length === 2 && args[1] === "serve" && (args[0] === "oauth" || args[0] === "auth")
      ? args[0]
      : undefined

if (which !== undefined) {
  const { serve } = await import("./Serve.js")
  serve(which)
} else {
  const { main } = await import("./Commands.js")
  main(process.argv)
}
