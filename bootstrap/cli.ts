#!/usr/bin/env node
/**
 * The `latchkey` executable. `latchkey serve` and `latchkey oauth serve` start their services
 * straight away; every other command goes through the command-line parser, which a serving
 * process never loads (its modules weigh several MiB of a small container's memory).
 */
const args = process.argv.slice(2)
const serving =
  args.length === 1 ? args[0] === "serve" : args.length === 2 && args[0] === "oauth" && args[1] === "serve"

if (serving) {
  const { serve } = await import("./Serve.js")
  serve(args[0] === "serve" ? "all" : "oauth")
} else {
  const { main } = await import("./Commands.js")
  main(process.argv)
}
